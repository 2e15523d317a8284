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
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// mediaRecorder is a provider API server on loopback that remembers the
// Content-Type and Accept headers of the last request.
type mediaRecorder struct {
	mu                  sync.Mutex
	contentType, accept string
}

func newMediaProvider(t *testing.T) (*httptest.Server, *mediaRecorder) {
	rec := &mediaRecorder{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.contentType, rec.accept = r.Header.Get("Content-Type"), r.Header.Get("Accept")
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"the recorder's own answer"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// TestTheProvidersClientsetSpeaksProtobuf: the session's clientset (twin
// watchers, the fabric) writes and asks for protobuf, and still takes
// JSON. client-go's typed clients (v0.36, this module's pin) do so when the
// config names no content type, as controller-runtime's client does for
// built-in kinds, so issue 17's lever "JSON where protobuf is available"
// has nothing left to take. This keeps a content type set on the session's
// config (ShadowPod clients are built from it too, and custom resources
// need JSON) from turning every pod watch and write of the peering into
// JSON.
func TestTheProvidersClientsetSpeaksProtobuf(t *testing.T) {
	g := NewWithT(t)
	srv, rec := newMediaProvider(t)
	rt, _ := New(Options{})
	cs, err := rt.Connect("milan", configFor(srv, "t"), "fp1")
	g.Expect(err).NotTo(HaveOccurred())

	_, err = cs.CoreV1().ConfigMaps("t").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	g.Expect(err).To(HaveOccurred(), "the recorder answers NotFound, in JSON")
	g.Expect(err.Error()).To(ContainSubstring("the recorder's own answer"), "a JSON answer is still read")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	g.Expect(rec.contentType).To(Equal(runtime.ContentTypeProtobuf))
	g.Expect(rec.accept).To(Equal(runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON))
	g.Expect(rt.sessions["milan"].config.ContentType).To(BeEmpty(), "custom resources' clients keep JSON")
}
