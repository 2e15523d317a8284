/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/spillway-dev/spillway/cmd/internal/profiling"
)

// checkPprofAddress accepts an empty or "0" --pprof-bind-address (off) or a
// loopback host:port. Only loopback: a profile holds memory contents, and the
// gateway runs on the host network next to its private key.
func checkPprofAddress(addr string) error {
	if !pprofEnabled(addr) {
		return nil
	}
	const fix = "give a loopback host:port such as 127.0.0.1:6060 or [::1]:6060, or 0 to turn it off"
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof-bind-address %q is not host:port: %s", addr, fix)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("--pprof-bind-address %q has no valid port: %s", addr, fix)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("--pprof-bind-address %q is not a loopback address: profiles reveal memory contents; %s", addr, fix)
	}
	return nil
}

// pprofEnabled reports whether --pprof-bind-address asks for an endpoint.
func pprofEnabled(addr string) bool { return addr != "" && addr != "0" }

// servePprof serves Go's profiles on addr, already checked by
// checkPprofAddress, for the life of the process; it listens before the
// tunnel is set up so that a taken port fails the start, naming the flag.
func servePprof(addr string, log *slog.Logger) (*http.Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-bind-address %s: %w; give a free loopback host:port", addr, err)
	}
	srv := &http.Server{Handler: profiling.Mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof endpoint stopped", "error", err)
		}
	}()
	return srv, nil
}
