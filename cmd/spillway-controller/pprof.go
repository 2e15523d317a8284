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
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spillway-dev/spillway/cmd/internal/profiling"
)

// pprofFlag is the name of the opt-in profiling endpoint's flag.
const pprofFlag = "pprof-bind-address"

func init() {
	flag.Func(pprofFlag, "serve Go's pprof profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; off when unset. "+
		"Bind it to loopback: profiles reveal memory contents", func(addr string) error {
		return servePprof(addr)
	})
}

// servePprof listens on addr while the flags are parsed, so a taken or
// malformed address fails at start-up with the flag's name, and serves the
// profiles for the life of the process: the benchmark profiles the manager
// under load, and a profile must not stop when the manager loses leadership.
func servePprof(addr string) error {
	if addr == "" || addr == "0" {
		return nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %q: %w; give a free host:port such as 127.0.0.1:6060", addr, err)
	}
	srv := &http.Server{Handler: profiling.Mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "spillway-controller: pprof endpoint stopped:", err)
		}
	}()
	return nil
}
