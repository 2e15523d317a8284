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

package pod

import (
	"context"
	"net/http"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func policyHandler(t *testing.T, funcs interceptor.Funcs) (*Handler, client.Client) {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	remote := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(funcs).Build()
	h := &Handler{Remote: remote, Twins: &TwinWatcher{Provider: kubefake.NewClientset(), LocalClusterID: "rome-id"},
		Namespaces: func(context.Context, string) (string, error) { return "demo-rome", nil }, ClusterName: "milan"}
	t.Cleanup(h.Twins.Stop)
	return h, remote
}

func rootPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "root"},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "busybox",
			SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}},
			Volumes: []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}}}
}

func TestAPodNoProviderWouldRunIsFailedWithoutSendingIt(t *testing.T) {
	g := NewWithT(t)
	h, remote := policyHandler(t, interceptor.Funcs{})
	g.Expect(h.CreatePod(context.Background(), rootPod())).To(Succeed(), "no retry: the pod cannot change")
	sps := &virtualkubeletv1alpha1.ShadowPodList{}
	g.Expect(remote.List(context.Background(), sps)).To(Succeed())
	g.Expect(sps.Items).To(BeEmpty())
	got, err := h.GetPod(context.Background(), "demo", "root")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Status.Phase).To(Equal(corev1.PodFailed))
	g.Expect(got.Status.Reason).To(Equal(ReasonProviderPodPolicy))
	g.Expect(got.Status.Message).To(ContainSubstring("spec.containers[0].securityContext.privileged"))
	g.Expect(got.Status.Message).To(ContainSubstring("spec.volumes[0].hostPath"))
}

func TestThePodsTheTranslationMakesSafePassTheBaseline(t *testing.T) {
	g := NewWithT(t)
	// Host namespaces, nodeName and the ServiceAccount are the consumer's to drop.
	g.Expect(RefusedByEveryProvider(ShadowPodFor(localPod(), "demo-rome", "rome-id"))).To(BeEmpty())
}

func TestAProviderRefusalIsPermanent(t *testing.T) {
	g := NewWithT(t)
	h, _ := policyHandler(t, interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity,
			Reason: metav1.StatusReasonInvalid, Message: `admission webhook "shadowpod.spillway.liqo.io" denied the request: ... spec.podSecurityLevel restricted ...`}}
	}})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	g.Expect(h.CreatePod(context.Background(), pod)).To(Succeed())
	got, err := h.GetPod(context.Background(), "demo", "web")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Status.Reason).To(Equal(ReasonProviderPodPolicy))
	g.Expect(got.Status.Message).To(ContainSubstring("provider milan refused its ShadowPod"))
	g.Expect(got.Status.Message).To(ContainSubstring("restricted"))
}
