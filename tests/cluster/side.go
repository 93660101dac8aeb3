package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sideProgram is a program the cluster runs beside the control plane, detached, from `up` until
// `down` (Kueue's manager, the gang scheduler): its folder data/<name> holds its pid file, its log
// and the configuration file it is started with (`PROGRAM --config FILE ...`).
type sideProgram struct{ dir, program string }

func (c cluster) sideProgram(name, program string) sideProgram {
	return sideProgram{filepath.Join(c.data(), name), program}
}

func (s sideProgram) pidFile() string { return filepath.Join(s.dir, s.program+".pid") }
func (s sideProgram) log() string     { return filepath.Join(s.dir, s.program+".log") }
func (s sideProgram) config() string  { return filepath.Join(s.dir, "config.yaml") }

// running reads the pid file and tells whether that process is this cluster's program, started
// from binary ("": any) with its configuration file (not exited, not a recycled pid).
func (s sideProgram) running(binary string) (int, bool) {
	pid, ok := readPid(s.pidFile())
	if !ok {
		return 0, false
	}
	return pid, isProcess(pid, func(args []string) bool {
		return len(args) >= 3 && (binary == "" || args[0] == binary) && args[1] == "--config" && args[2] == s.config()
	})
}

// stop stops the program if it runs (SIGTERM, then SIGKILL after stopTimeout).
func (s sideProgram) stop() {
	if pid, running := s.running(""); running {
		terminate(pid, stopTimeout, func() bool { _, running := s.running(""); return running })
	}
}

// readPid reads a pid file; false when it is missing or holds no pid.
func readPid(path string) (int, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
