package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ProcessError reports that etcd or kube-apiserver could not start, exited
// before it was ready, or could not be stopped. Log holds the tail of the
// process's output, which usually names the cause.
type ProcessError struct {
	Name string // "etcd" or "kube-apiserver"
	Op   string // "start", "wait ready", "stop"
	Err  error
	Log  string
}

func (e *ProcessError) Error() string {
	return fmt.Sprintf("cluster: %s %s: %v\n--- %s log tail ---\n%s", e.Op, e.Name, e.Err, e.Name, e.Log)
}

func (e *ProcessError) Unwrap() error { return e.Err }

// errExited is wrapped in a ProcessError when a process ended on its own.
var errExited = errors.New("process exited")

// process is one run of a binary. Its owner (the Cluster) calls stop
// exactly once; the waiter goroutine started by startProcess ends when the
// process does and closes done.
type process struct {
	name    string
	cmd     *exec.Cmd
	done    chan struct{}
	exitErr error // set before done is closed
}

// startProcess starts path with args, writing its output to log (kept
// across restarts, so a test that fails after a restart still sees why).
func startProcess(name, path string, args []string, log io.Writer) (*process, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr()
	fmt.Fprintf(log, "=== %s start %s: %s %v\n", time.Now().Format(time.TimeOnly), name, path, args)
	if err := cmd.Start(); err != nil {
		return nil, &ProcessError{Name: name, Op: "start", Err: err}
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.exitErr = cmd.Wait()
		fmt.Fprintf(log, "=== %s %s exited: %v\n", time.Now().Format(time.TimeOnly), name, p.exitErr)
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		if p.exitErr == nil {
			return true, errExited
		}
		return true, fmt.Errorf("%w: %w", errExited, p.exitErr)
	default:
		return false, nil
	}
}

// stop sends SIGTERM, then SIGKILL if the process is still there after
// grace (an apiserver whose etcd is gone can hang in its graceful
// shutdown), and waits for it to end. A grace of 0 kills at once. A process that was already gone is
// not an error: stop is how the owner cleans up either way.
func (p *process) stop(grace time.Duration) error {
	if done, _ := p.exited(); done {
		return nil
	}
	if grace == 0 {
		return p.kill()
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return &ProcessError{Name: p.name, Op: "stop", Err: err}
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	}
	return p.kill()
}

func (p *process) kill() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return &ProcessError{Name: p.name, Op: "stop", Err: err}
	}
	<-p.done
	return nil
}
