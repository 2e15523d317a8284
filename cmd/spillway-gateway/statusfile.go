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
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spillway-dev/spillway/network/gateway"
)

// statusFileInterval is how often --status-file is rewritten: the manager
// that supervises this gateway reads it, so a phase change reaches the
// peering's status within about one interval.
const statusFileInterval = time.Second

// writeStatusFile replaces path with st as JSON. It writes a temporary file
// and renames it, so a reader never sees half a status.
func writeStatusFile(path string, st gateway.Status) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".status-*")
	if err != nil {
		return fmt.Errorf("--status-file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("--status-file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--status-file %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// keepStatusFile writes status() to path every statusFileInterval until ctx
// ends, and once more on the way out so the last word is recorded. An empty
// path disables it. The file, unlike /status, is readable across network
// namespaces, which is how a manager in the host namespace supervises a
// gateway in a gateway namespace.
func keepStatusFile(ctx context.Context, path string, status func() gateway.Status) <-chan struct{} {
	done := make(chan struct{})
	if path == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		t := time.NewTicker(statusFileInterval)
		defer t.Stop()
		for {
			if err := writeStatusFile(path, status()); err != nil {
				fmt.Fprintln(os.Stderr, "spillway-gateway:", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return done
}
