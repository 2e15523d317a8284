//go:build bench

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

package network_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The userspace relay is the tunnel's reference path (issue 17, target 6):
// the same stream from a's gateway namespace to b's, crossing user space
// once in each, as the tunnel does in each gateway, but as a byte stream
// (TCP ends at each relay) rather than packet by packet, and with nothing
// done to the bytes there. A relay in a's namespace reads what the sender
// writes to it and writes it over the underlay to a relay in b's, which
// writes it to the sink. Both copy through a buffer in user memory (not
// splice(2), which Go's io.Copy between two TCP sockets would use), as a
// gateway must. Relays run in this process, like the endpoints, so their
// CPU is counted with the endpoints'; the machine's CPU per GB compares
// the paths.
const (
	relayAPort = "5204" // a's relay, on a's underlay address
	relayBPort = "5205" // b's relay, on b's underlay address
	relaySink  = "5206" // the sink, on b's loopback
)

// relayBuffer is the copy's buffer: the sender's writes are this size too.
const relayBuffer = 128 << 10

// relays are the two relays of the reference path, each serving one stream.
type relays struct {
	lns    []net.Listener
	wg     sync.WaitGroup
	errs   chan error
	copied [2]atomic.Int64 // bytes each relay passed on
}

// startRelays listens in both gateway namespaces; the stream's sender dials
// a's relay (underlayA:relayAPort in a's namespace) and its sink listens on
// 127.0.0.1:relaySink in b's.
func startRelays(l *lab) (*relays, error) {
	r := &relays{errs: make(chan error, 2)}
	hops := []struct{ ns, listen, next string }{
		{l.ns("gwa"), net.JoinHostPort(underlayA, relayAPort), net.JoinHostPort(underlayB, relayBPort)},
		{l.ns("gwb"), net.JoinHostPort(underlayB, relayBPort), net.JoinHostPort("127.0.0.1", relaySink)},
	}
	for i, h := range hops {
		ln, err := listenIn(h.ns, h.listen)
		if err != nil {
			return nil, errors.Join(err, r.stop(0))
		}
		r.lns = append(r.lns, ln)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.errs <- relayOne(ln, h.ns, h.next, &r.copied[i])
		}()
	}
	return r, nil
}

// relayOne accepts one connection on ln and copies it to a connection to
// next, dialled from namespace ns, until the sender closes, counting what
// it passed on in copied.
func relayOne(ln net.Listener, ns, next string, copied *atomic.Int64) error {
	in, err := ln.Accept()
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dialIn(ns, next, 2*time.Second)
	if err != nil {
		return err
	}
	defer out.Close()
	// The wrappers hide ReadFrom and WriteTo, so the bytes pass through buf.
	buf := make([]byte, relayBuffer)
	n, err := io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, buf)
	copied.Store(n)
	return err
}

// stop closes the listeners and waits for the relays, returning what failed,
// including a relay that did not pass on the moved bytes the sink received:
// a stream that bypassed it would otherwise pass for the relay path.
func (r *relays) stop(moved int64) error {
	var errs []error
	for _, ln := range r.lns {
		errs = append(errs, ln.Close())
	}
	r.wg.Wait()
	close(r.errs)
	for err := range r.errs {
		if err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for i := range r.copied {
		if n := r.copied[i].Load(); n != moved {
			errs = append(errs, fmt.Errorf("relay %d passed on %d bytes, the sink received %d", i+1, n, moved))
		}
	}
	return errors.Join(errs...)
}
