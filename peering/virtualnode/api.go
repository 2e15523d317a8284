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

package virtualnode

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	vkapi "github.com/virtual-kubelet/virtual-kubelet/node/api"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
)

// ContainerAPI is what one virtual node answers on the kubelet API, by
// asking its provider: reflectors/pod.Handler implements it.
type ContainerAPI interface {
	ContainerLogs(ctx context.Context, namespace, pod, container string, opts vkapi.ContainerLogOpts) (io.ReadCloser, error)
	RunInContainer(ctx context.Context, namespace, pod, container string, cmd []string, attach vkapi.AttachIO) error
}

// APIServer is the kubelet HTTP API (containerLogs, exec) of every virtual
// node this manager runs, on one port.
//
// One port per manager, not one per node: the API server reaches a kubelet at
// the node's address and daemonEndpoints port, and every virtual node of a
// manager has the same address anyway, so a port per node would only add an
// allocator, a listener and a certificate per peering, and a port range to
// open in network policies. The kubelet paths name the pod, and a pod is bound
// to exactly one node, so the pod's spec.nodeName picks the provider.
type APIServer struct {
	// Addr is the listen address, host:port.
	Addr string
	// Local reads the pod to find its node, and reviews the caller's access.
	Local kubernetes.Interface
	// ClientCAs verify the API server's kubelet client certificate
	// (--kubelet-client-certificate); requests without one are refused.
	ClientCAs *x509.CertPool
	// Hosts are the names and IPs the self-signed serving certificate covers.
	Hosts []string

	mu    sync.RWMutex
	nodes map[string]ContainerAPI
}

// Register makes node's pods reachable through the API.
func (s *APIServer) Register(node string, api ContainerAPI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nodes == nil {
		s.nodes = map[string]ContainerAPI{}
	}
	s.nodes[node] = api
}

// Unregister forgets node: its pods' logs and exec answer NotFound.
func (s *APIServer) Unregister(node string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.nodes, node)
}

func (s *APIServer) node(name string) ContainerAPI {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nodes[name]
}

// NeedLeaderElection is false: a standby manager answers too (NotFound, as it
// runs no node), so a failover never leaves the port closed.
func (s *APIServer) NeedLeaderElection() bool { return false }

// Start serves until ctx ends; it is a controller-runtime Runnable.
func (s *APIServer) Start(ctx context.Context) error {
	cert, err := SelfSignedCertificate(s.Hosts, 365*24*time.Hour)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr: s.Addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx },
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert},
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: s.ClientCAs},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServeTLS("", "") }()
	ctrl.Log.WithName("virtualnode").Info("serving the virtual kubelet API", "address", s.Addr)
	select {
	case err := <-errc:
		return fmt.Errorf("virtual kubelet API on %s: %w", s.Addr, err)
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}

// Handler is the API behind TLS: authorization, then virtual-kubelet's
// kubelet routes for logs and exec.
func (s *APIServer) Handler() http.Handler {
	mux := http.NewServeMux()
	vkapi.AttachPodRoutes(vkapi.PodHandlerConfig{
		GetContainerLogs: s.containerLogs,
		RunInContainer:   s.runInContainer,
		// An idle `kubectl exec -it` shell stays open as long as a kubelet's would.
		StreamIdleTimeout: 4 * time.Hour, StreamCreationTimeout: 30 * time.Second,
	}, mux, false)
	return s.guard(mux)
}

func (s *APIServer) containerLogs(ctx context.Context, ns, pod, container string, opts vkapi.ContainerLogOpts) (io.ReadCloser, error) {
	api, ok := ctx.Value(nodeKey{}).(ContainerAPI)
	if !ok {
		return nil, errdefs.NotFoundf("pod %s/%s is not on a virtual node of this manager", ns, pod)
	}
	return api.ContainerLogs(ctx, ns, pod, container, opts)
}

func (s *APIServer) runInContainer(ctx context.Context, ns, pod, container string, cmd []string, attach vkapi.AttachIO) error {
	api, ok := ctx.Value(nodeKey{}).(ContainerAPI)
	if !ok {
		return errdefs.NotFoundf("pod %s/%s is not on a virtual node of this manager", ns, pod)
	}
	return api.RunInContainer(ctx, ns, pod, container, cmd, attach)
}

type nodeKey struct{}

// guard authenticates the caller by its client certificate, finds the
// virtual node of the pod the path names, and checks that the caller may use
// that node's kubelet API, as a kubelet with webhook authorization does
// (nodes/proxy): a certificate signed by the cluster CA proves only who calls.
// It runs before virtual-kubelet's router, which knows no 401 nor 403.
func (s *APIServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := CallerFor(r)
		if err != nil {
			http.Error(w, "unauthorized: "+err.Error(), http.StatusUnauthorized)
			return
		}
		ns, name, ok := PodOfPath(r.URL.Path)
		if !ok {
			http.Error(w, "not found: this virtual kubelet serves /containerLogs/ and /exec/ only", http.StatusNotFound)
			return
		}
		node, api, code, err := s.resolve(r.Context(), ns, name)
		if err == nil {
			code, err = s.authorize(r.Context(), c, node)
		}
		if err != nil {
			http.Error(w, err.Error(), code)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nodeKey{}, api)))
	})
}

// resolve finds the virtual node a pod is bound to.
func (s *APIServer) resolve(ctx context.Context, ns, name string) (string, ContainerAPI, int, error) {
	pod, err := s.Local.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil, http.StatusNotFound, fmt.Errorf("pod %s/%s not found", ns, name)
	}
	if err != nil {
		return "", nil, http.StatusInternalServerError, fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
	}
	api := s.node(pod.Spec.NodeName)
	if api == nil {
		return "", nil, http.StatusNotFound, fmt.Errorf("pod %s/%s is bound to node %q, which is not a virtual node run by this Spillway manager", ns, name, pod.Spec.NodeName)
	}
	return pod.Spec.NodeName, api, http.StatusOK, nil
}

func (s *APIServer) authorize(ctx context.Context, c Caller, node string) (int, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: c.User, Groups: c.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: c.Verb, Resource: "nodes", Subresource: "proxy", Name: node},
	}}
	res, err := s.Local.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return http.StatusInternalServerError, fmt.Errorf("reviewing access of %s to nodes/%s/proxy: %w", c.User, node, err)
	}
	if !res.Status.Allowed {
		return http.StatusForbidden, fmt.Errorf("forbidden: user %s may not %s nodes/%s/proxy; grant it with RBAC (the API server's kubelet client identity needs it)", c.User, c.Verb, node)
	}
	return http.StatusOK, nil
}

// Caller is who sent a request, from its client certificate, and the verb a
// kubelet authorizes it for.
type Caller struct {
	User   string
	Groups []string
	Verb   string
}

// CallerFor derives the caller of a request from its verified client
// certificate (CN is the user, O the groups, as the API server reads them) and
// the verb from the method, as the kubelet does.
func CallerFor(r *http.Request) (Caller, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return Caller{}, errors.New("no verified client certificate")
	}
	cert := r.TLS.VerifiedChains[0][0]
	verb := "get"
	if r.Method == http.MethodPost {
		verb = "create"
	}
	return Caller{User: cert.Subject.CommonName, Groups: cert.Subject.Organization, Verb: verb}, nil
}

// PodOfPath returns the pod named by a kubelet path
// (/containerLogs/{namespace}/{pod}/{container}, /exec/{namespace}/{pod}/{container}).
func PodOfPath(path string) (namespace, pod string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) != 4 || (parts[0] != "containerLogs" && parts[0] != "exec") || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return "", "", false
	}
	return parts[1], parts[2], true
}
