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
	"crypto/x509/pkix"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	vkapi "github.com/virtual-kubelet/virtual-kubelet/node/api"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// fakeNode answers logs with its own name, to show which node served a request.
type fakeNode string

func (f fakeNode) ContainerLogs(_ context.Context, ns, pod, container string, _ vkapi.ContainerLogOpts) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(string(f) + ":" + ns + "/" + pod + "/" + container)), nil
}

func (f fakeNode) RunInContainer(context.Context, string, string, string, []string, vkapi.AttachIO) error {
	return nil
}

func podOn(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

// apiWith returns a server whose SubjectAccessReviews allow only allowedUser.
func apiWith(allowedUser string, pods ...runtime.Object) (*APIServer, *[]authorizationv1.SubjectAccessReviewSpec) {
	cs := fake.NewClientset(pods...)
	var reviews []authorizationv1.SubjectAccessReviewSpec
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		reviews = append(reviews, sar.Spec)
		sar.Status.Allowed = sar.Spec.User == allowedUser
		return true, sar, nil
	})
	s := &APIServer{Local: cs}
	s.Register("liqo-milan", fakeNode("milan"))
	s.Register("liqo-paris", fakeNode("paris"))
	return s, &reviews
}

func request(method, path, user string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	if user != "" {
		cert := &x509.Certificate{Subject: pkix.Name{CommonName: user, Organization: []string{"system:masters"}}}
		r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	}
	return r
}

func TestAPIRoutesLogsToThePodsVirtualNode(t *testing.T) {
	g := NewWithT(t)
	s, reviews := apiWith("kube-apiserver-kubelet-client", podOn("web", "liqo-paris"))
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, request(http.MethodGet, "/containerLogs/demo/web/nginx?tailLines=5", "kube-apiserver-kubelet-client"))
	g.Expect(w.Code).To(Equal(http.StatusOK), w.Body.String())
	g.Expect(w.Body.String()).To(Equal("paris:demo/web/nginx"))
	g.Expect(*reviews).To(ConsistOf(authorizationv1.SubjectAccessReviewSpec{User: "kube-apiserver-kubelet-client", Groups: []string{"system:masters"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "proxy", Name: "liqo-paris"}}))
}

func TestAPIRefusesWhatAKubeletWouldRefuse(t *testing.T) {
	s, _ := apiWith("kube-apiserver-kubelet-client", podOn("web", "liqo-milan"), podOn("local", "rome-worker-0"))
	for _, tc := range []struct {
		name, method, path, user string
		code                     int
		says                     string
	}{
		{"no client certificate", http.MethodGet, "/containerLogs/demo/web/nginx", "", http.StatusUnauthorized, "no verified client certificate"},
		{"a user RBAC does not allow", http.MethodGet, "/containerLogs/demo/web/nginx", "mallory", http.StatusForbidden, "mallory may not get nodes/liqo-milan/proxy"},
		{"exec by a user RBAC does not allow", http.MethodPost, "/exec/demo/web/nginx?command=ls", "mallory", http.StatusForbidden, "mallory may not create"},
		{"a pod on a physical node", http.MethodGet, "/containerLogs/demo/local/nginx", "kube-apiserver-kubelet-client", http.StatusNotFound, `node "rome-worker-0", which is not a virtual node`},
		{"a pod that does not exist", http.MethodGet, "/containerLogs/demo/ghost/nginx", "kube-apiserver-kubelet-client", http.StatusNotFound, "pod demo/ghost not found"},
		{"a path the API does not serve", http.MethodGet, "/pods", "kube-apiserver-kubelet-client", http.StatusNotFound, "serves /containerLogs/ and /exec/ only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, request(tc.method, tc.path, tc.user))
			g.Expect(w.Code).To(Equal(tc.code))
			g.Expect(w.Body.String()).To(ContainSubstring(tc.says))
		})
	}
}

func TestAPIForgetsAnUnregisteredNode(t *testing.T) {
	g := NewWithT(t)
	s, _ := apiWith("kube-apiserver-kubelet-client", podOn("web", "liqo-milan"))
	s.Unregister("liqo-milan")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, request(http.MethodGet, "/containerLogs/demo/web/nginx", "kube-apiserver-kubelet-client"))
	g.Expect(w.Code).To(Equal(http.StatusNotFound))
}

func TestPodOfPath(t *testing.T) {
	g := NewWithT(t)
	ns, pod, ok := PodOfPath("/exec/demo/web/nginx")
	g.Expect([]any{ns, pod, ok}).To(Equal([]any{"demo", "web", true}))
	for _, bad := range []string{"/containerLogs/demo/web", "/attach/demo/web/nginx", "/containerLogs//web/nginx", "/"} {
		_, _, ok := PodOfPath(bad)
		g.Expect(ok).To(BeFalse(), bad)
	}
}

func TestSelfSignedCertificateCoversTheNodeAddress(t *testing.T) {
	g := NewWithT(t)
	c, err := SelfSignedCertificate([]string{"127.0.0.1", "spillway.liqo.svc"}, 3600e9)
	g.Expect(err).NotTo(HaveOccurred())
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leaf.VerifyHostname("127.0.0.1")).To(Succeed())
	g.Expect(leaf.VerifyHostname("spillway.liqo.svc")).To(Succeed())
	g.Expect(leaf.ExtKeyUsage).To(ConsistOf(x509.ExtKeyUsageServerAuth))
}
