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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

func offloadingScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = offloadingv1alpha1.AddToScheme(s)
	return s
}

// offloadedTo is namespace apps' NamespaceOffloading with a twin on milan
// whose Ready condition is status.
func offloadedTo(status metav1.ConditionStatus) *offloadingv1alpha1.NamespaceOffloading {
	no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: offloadingv1alpha1.RequiredName}}
	no.Status.RemoteNamespaceName = "apps-rome-abc"
	no.Status.RemoteNamespacesConditions = map[string]offloadingv1alpha1.RemoteNamespaceConditions{
		policies.UniqueClusterName("milan", "milan-id"): {{Type: offloadingv1alpha1.NamespaceReadyCondition, Status: status}},
	}
	return no
}

func TestOffloadingMapper(t *testing.T) {
	etcdDown := apierrors.NewServiceUnavailable("etcd is down")
	tests := []struct {
		name             string
		objs             []client.Object
		getErr           error
		want             string
		wantNotOffloaded bool
		wantErr          string
	}{
		{name: "a ready twin", objs: []client.Object{offloadedTo(metav1.ConditionTrue)}, want: "apps-rome-abc"},
		{name: "a twin not ready yet", objs: []client.Object{offloadedTo(metav1.ConditionFalse)}, wantNotOffloaded: true,
			wantErr: "namespace apps has no ready twin on cluster milan"},
		{name: "no NamespaceOffloading", wantNotOffloaded: true, wantErr: "namespace apps has no NamespaceOffloading"},
		{name: "a failed read is not 'not offloaded'", getErr: etcdDown,
			wantErr: "reading the NamespaceOffloading of namespace apps: etcd is down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c := fake.NewClientBuilder().WithScheme(offloadingScheme()).WithObjects(tt.objs...).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if tt.getErr != nil {
						return tt.getErr
					}
					return c.Get(ctx, key, obj, opts...)
				}}).Build()

			got, err := OffloadingMapper(c, "milan", "milan-id")(context.Background(), "apps")

			g.Expect(got).To(Equal(tt.want))
			if tt.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
			g.Expect(errors.Is(err, ErrNotOffloaded)).To(Equal(tt.wantNotOffloaded))
		})
	}
}

// DeletePod has nothing to do in a namespace that is not offloaded, but must
// not drop a failure to find out: virtual-kubelet retries it. UpdatePod never
// hands virtual-kubelet a failure (it would fail a restartPolicy Never pod):
// it retries itself.
func TestUpdateAndDeleteOnMappingFailures(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-1"}}
	tests := []struct {
		name    string
		mapErr  error
		wantErr bool
	}{
		{name: "not offloaded", mapErr: ErrNotOffloaded},
		{name: "mapping failed", mapErr: errors.New("etcd is down"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			h := &Handler{ClusterName: "milan", Twins: &TwinWatcher{}, Namespaces: func(context.Context, string) (string, error) { return "", tt.mapErr }}
			g.Expect(h.UpdatePod(context.Background(), pod)).To(Succeed())
			err := h.DeletePod(context.Background(), pod)
			if tt.wantErr {
				g.Expect(err).To(MatchError(ContainSubstring("mapping namespace apps to its twin on cluster milan: etcd is down")))
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
		})
	}
}
