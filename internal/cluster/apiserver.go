package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apiServerArgs are the flags the harness runs kube-apiserver with. Flags
// in opts.ExtraAPIServerArgs come later on the command line, and the
// apiserver's flag parser lets the last occurrence win.
func (c *Cluster) apiServerArgs() []string {
	args := []string{
		"--etcd-servers=" + c.EtcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The endpoint reconciler refuses a loopback advertise address,
		// and nothing here needs the kubernetes Service's endpoints.
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(c.apiPort),
		"--tls-cert-file=" + c.creds.certFile,
		"--tls-private-key-file=" + c.creds.keyFile,
		// Unused while a certificate is given, but keeps the apiserver
		// from writing into its working folder if it ever wants to.
		"--cert-dir=" + filepath.Join(c.Dir, "apiserver-certs"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.creds.saKeyFile,
		"--service-account-signing-key-file=" + c.creds.saKeyFile,
		"--token-auth-file=" + c.creds.tokenFile,
		// Client certificates signed by the cluster's CA authenticate too
		// (see ClientCertificate).
		"--client-ca-file=" + c.creds.caFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--profiling=false",
		// Without it a SIGTERM'd apiserver waits for open watches to end
		// on their own, which they do not: it hangs until SIGKILL. With it
		// the watches end cleanly (EOF) and it exits in about a second.
		"--shutdown-watch-termination-grace-period=" + watchDrain.String(),
	}
	if c.opts.WatchCache != nil {
		args = append(args, "--watch-cache="+strconv.FormatBool(*c.opts.WatchCache))
	}
	if gates := featureGatesFlag(c.opts.FeatureGates); gates != "" {
		args = append(args, gates)
	}
	return append(args, c.opts.ExtraAPIServerArgs...)
}

// featureGatesFlag is the --feature-gates flag for gates, in name order so
// that the command line is the same from run to run; "" for none.
func featureGatesFlag(gates map[string]bool) string {
	if len(gates) == 0 {
		return ""
	}
	var kv []string
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		kv = append(kv, name+"="+strconv.FormatBool(gates[name]))
	}
	return "--feature-gates=" + strings.Join(kv, ",")
}

// StartAPIServer starts kube-apiserver on the cluster's port (the same URL
// as before a stop) and waits until /readyz answers ok or ctx ends. etcd
// must be running for it to become ready. It fails if the apiserver runs
// already.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return &ProcessError{Name: "kube-apiserver", Op: "start", Err: errClosed}
	}
	if c.apiserver != nil {
		return &ProcessError{Name: "kube-apiserver", Op: "start", Err: errAlreadyRunning}
	}
	p, err := startProcess("kube-apiserver", filepath.Join(c.binDir, "kube-apiserver"), c.apiServerArgs(), c.logWriter(&c.apiLog))
	if err != nil {
		return err
	}
	if err := c.waitReady(ctx, p, &c.apiLog, c.apiServerReady); err != nil {
		return errors.Join(err, p.stop(APIServerStopGrace))
	}
	c.apiserver = p
	return nil
}

// StopAPIServer stops kube-apiserver gracefully (SIGTERM, SIGKILL after
// APIServerStopGrace) and waits for it to end, about a second. Open
// watches end with a clean end of stream and no ERROR event. Stopping a
// stopped apiserver does nothing.
func (c *Cluster) StopAPIServer() error { return c.stopAPIServer(APIServerStopGrace) }

// KillAPIServer kills kube-apiserver with SIGKILL, as a crash would, and
// waits for it to end. Open watches see their connection drop. Killing a
// stopped apiserver does nothing.
func (c *Cluster) KillAPIServer() error { return c.stopAPIServer(0) }

func (c *Cluster) stopAPIServer(grace time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiserver == nil {
		return nil
	}
	thawErr := c.thawLocked() // a frozen process would sit on its SIGTERM
	err := errors.Join(thawErr, c.apiserver.stop(grace))
	c.apiserver = nil
	// Pooled connections point at the dead server.
	c.admin.CloseIdleConnections()
	return err
}

// RestartAPIServer stops the apiserver and starts it again, waiting until
// it is ready. Its new watch cache starts at etcd's current revision.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	if err := c.StopAPIServer(); err != nil {
		return err
	}
	return c.StartAPIServer(ctx)
}

func (c *Cluster) apiServerReady(ctx context.Context) (bool, string) {
	status, body, err := c.getJSON(ctx, c.admin, c.URL+"/readyz", nil)
	if err != nil {
		return false, err.Error()
	}
	return status == http.StatusOK && strings.TrimSpace(body) == "ok", body
}

// Names of the RBAC objects Start creates for NodeUser.
const nodeRoleName = "podwatch-pod-reader"

// grantNodeUser lets NodeUser get, list and watch pods, as a node's
// identity would for the pods bound to it, and nothing more.
func (c *Cluster) grantNodeUser(ctx context.Context) error {
	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRole",
		"metadata":   map[string]any{"name": nodeRoleName},
		"rules": []any{map[string]any{
			"apiGroups": []string{""},
			"resources": []string{"pods"},
			"verbs":     []string{"get", "list", "watch"},
		}},
	}
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRoleBinding",
		"metadata":   map[string]any{"name": nodeRoleName},
		"roleRef": map[string]any{
			"apiGroup": "rbac.authorization.k8s.io",
			"kind":     "ClusterRole",
			"name":     nodeRoleName,
		},
		"subjects": []any{map[string]any{
			"apiGroup": "rbac.authorization.k8s.io",
			"kind":     "User",
			"name":     NodeUser,
		}},
	}
	if err := c.Do(ctx, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterroles", role, nil); err != nil {
		return err
	}
	if err := c.Do(ctx, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding, nil); err != nil {
		return err
	}
	return c.waitNodeGrant(ctx)
}

// waitNodeGrant waits until the RBAC authorizer, which reads roles from
// its own informer cache, lets NodeUser list pods, so no test sees a
// spurious 403 right after Start.
func (c *Cluster) waitNodeGrant(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ReadyTimeout)
	defer cancel()
	node := c.Client(c.NodeToken)
	defer node.CloseIdleConnections()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		status, body, err := c.getJSON(ctx, node, c.URL+"/api/v1/pods?limit=1", nil)
		if err == nil && status == http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: wait for RBAC grant of %s: %w (last answer: %d %v %.500s)", NodeUser, ctx.Err(), status, err, body)
		case <-tick.C:
		}
	}
}
