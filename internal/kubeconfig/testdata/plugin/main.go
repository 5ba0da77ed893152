// Command plugin is a fake exec credential plugin for the kubeconfig tests,
// built by their TestMain. It counts its runs in $PLUGIN_DIR/runs, keeps what
// it was given in info-N.json (KUBERNETES_EXEC_INFO) and env-N.txt, and
// answers according to its -mode= argument.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() { os.Exit(run()) }

func run() int {
	dir := os.Getenv("PLUGIN_DIR")
	mode := "token"
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "-mode="); ok {
			mode = v
		}
	}
	runs, _ := os.ReadFile(filepath.Join(dir, "runs"))
	n := len(runs) + 1
	if err := os.WriteFile(filepath.Join(dir, "runs"), append(runs, 'x'), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	info := os.Getenv("KUBERNETES_EXEC_INFO")
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("info-%d.json", n)), []byte(info), 0o600)
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BASE_") || strings.HasPrefix(kv, "PLUGIN_EXTRA") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("env-%d.txt", n)), []byte(strings.Join(env, "\n")), 0o600)
	fmt.Fprintf(os.Stderr, "fake plugin run %d\n", n)

	var in struct {
		APIVersion string `json:"apiVersion"`
	}
	json.Unmarshal([]byte(info), &in)
	out := map[string]any{"apiVersion": in.APIVersion, "kind": "ExecCredential"}
	status := map[string]any{}
	if exp := os.Getenv("PLUGIN_EXPIRY"); exp != "" {
		status["expirationTimestamp"] = exp
	}
	out["status"] = status
	switch mode {
	case "token":
		status["token"] = fmt.Sprintf("plugin-token-%d", n)
	case "stdin":
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		status["token"] = "stdin:" + strings.TrimSpace(line)
	case "cert", "half-cert":
		cert, err1 := os.ReadFile(os.Getenv("PLUGIN_CERT"))
		key, err2 := os.ReadFile(os.Getenv("PLUGIN_KEY"))
		if err1 != nil || err2 != nil {
			fmt.Fprintln(os.Stderr, err1, err2)
			return 1
		}
		status["clientCertificateData"] = string(cert)
		if mode == "cert" {
			status["clientKeyData"] = string(key)
		}
	case "exit":
		return 3
	case "hang":
		time.Sleep(time.Minute)
	case "garbage":
		fmt.Print(`{"status": {"token": "leaked-secret-token"`)
		return 0
	case "wrong-version":
		out["apiVersion"] = "client.authentication.k8s.io/v9"
		status["token"] = "leaked-secret-token"
	case "no-status":
		delete(out, "status")
	case "flood":
		fmt.Print(strings.Repeat(" ", 2<<20))
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}
