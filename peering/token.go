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
	"bytes"
	"net/http"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// bearerToken is a peering's current token. Every client of a session (the
// health probe, the pod handler, twin watchers, the reflection set, the exec
// and logs relay, the network fabric's reads and writes, the remote.Registry
// entry) is built from one rest.Config whose transport reads it on each
// request, so a rotated token reaches all of them at once, and no client,
// informer or remote pod is rebuilt.
type bearerToken struct{ v atomic.Pointer[string] }

func (t *bearerToken) set(token string) { t.v.Store(&token) }

// wrap is the session config's WrapTransport: it sets the Authorization
// header on a copy of the request, as a RoundTripper may not change its input.
func (t *bearerToken) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+*t.v.Load())
		return next.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// sessionConfig is cfg with its bearer token moved into token.
func sessionConfig(cfg *rest.Config, token *bearerToken) *rest.Config {
	out := rest.CopyConfig(cfg)
	token.set(cfg.BearerToken)
	out.BearerToken = ""
	out.WrapTransport = token.wrap
	return out
}

// sameEndpoint says whether only the token differs between two credentials:
// then swapping the token is the whole rotation.
func sameEndpoint(a, b *rest.Config) bool {
	return a.Host == b.Host && bytes.Equal(a.CAData, b.CAData)
}
