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

package peering

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// tokenRecorder is a provider API server on loopback that remembers the
// Authorization header of every request.
type tokenRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (t *tokenRecorder) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.seen) == 0 {
		return ""
	}
	return t.seen[len(t.seen)-1]
}

func newProvider(t *testing.T) (*httptest.Server, *tokenRecorder) {
	rec := &tokenRecorder{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Header.Get("Authorization"))
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.4"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func configFor(srv *httptest.Server, token string) *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &rest.Config{Host: srv.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// TestRotationReachesEveryClientOfTheSession: a new token for the same
// server is sent by the clients built before the rotation (the clientset the
// probe, twin watchers and fabric use, and a controller-runtime client built
// from the session config, as the pod handler and reflection are), without
// rebuilding them.
func TestRotationReachesEveryClientOfTheSession(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	srv, rec := newProvider(t)
	rt, _ := New(Options{})
	cs, err := rt.Connect("milan", configFor(srv, "old"), "fp1")
	g.Expect(err).NotTo(HaveOccurred())
	s := rt.sessions["milan"]
	handlerClient, err := client.New(s.config, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = cs.Discovery().ServerVersion()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rec.last()).To(Equal("Bearer old"))

	again, err := rt.Connect("milan", configFor(srv, "new"), "fp2")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(BeIdenticalTo(cs), "a token rotation keeps the clients")
	_, err = cs.Discovery().ServerVersion()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rec.last()).To(Equal("Bearer new"))
	_ = handlerClient.Get(ctx, client.ObjectKey{Namespace: "t", Name: "x"}, &corev1.ConfigMap{})
	g.Expect(rec.last()).To(Equal("Bearer new"), "clients built before the rotation send the new token")
	g.Expect(s.config.BearerToken).To(BeEmpty(), "the token lives only in the session's transport")
}

func TestANewServerRebuildsTheClients(t *testing.T) {
	g := NewWithT(t)
	a, _ := newProvider(t)
	b, recB := newProvider(t)
	rt, _ := New(Options{})
	first, _ := rt.Connect("milan", configFor(a, "t"), "fp1")
	second, err := rt.Connect("milan", configFor(b, "t"), "fp2")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(second).NotTo(BeIdenticalTo(first))
	_, err = second.Discovery().ServerVersion()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(recB.last()).To(Equal("Bearer t"))
}
