# chromium.mk: Debian's chromium, in which the browser test opens the trace's
# HTML pages (internal/cli, TestTraceHTMLInBrowser). The main Makefile
# includes this file; make test depends on it.
#
#   make chromium   install the chromium package with apt-get when the
#                   chromium command is missing, as root (running apt-get
#                   update first if the install needs it); otherwise say how,
#                   and the test fails saying so too. Chromium is never
#                   downloaded any other way.

.PHONY: chromium
chromium:
	@if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "chromium is missing and only root may install it: the browser test needs it (apt-get install chromium)"; exit 0; \
	fi; \
	echo "installing Debian's chromium for the browser test"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y chromium || { apt-get update && apt-get install -y chromium; } || \
	  echo "could not install chromium: the browser test will fail until it is (apt-get install chromium)"
