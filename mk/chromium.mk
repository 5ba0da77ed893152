# chromium.mk: Debian's chromium, in which the browser test opens the trace's
# HTML pages (internal/cli, TestTraceHTMLInBrowser). The main Makefile
# includes this file; make test depends on it.
#
#   make chromium   install the chromium package with apt-get when the
#                   chromium command is missing, as root or through sudo
#                   without a password (running apt-get
#                   update first if the install needs it); otherwise say how,
#                   and the test fails saying so too. Chromium is never
#                   downloaded any other way.

.PHONY: chromium
chromium:
	@if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	as=; if [ "$$(id -u)" != 0 ]; then \
	  if sudo -n true 2>/dev/null; then as="sudo -n"; else \
	    echo "chromium is missing and only root (or sudo without a password) may install it: the browser test needs it (apt-get install chromium)"; exit 0; \
	  fi; \
	fi; \
	echo "installing Debian's chromium for the browser test"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$as apt-get install -y chromium || { $$as apt-get update && $$as apt-get install -y chromium; } || \
	  echo "could not install chromium: the browser test will fail until it is (apt-get install chromium)"
