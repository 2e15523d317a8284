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

package configmap

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

func TestTranslateCopiesDataAndMarksTheCopy(t *testing.T) {
	g := NewWithT(t)
	local := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "liqo-demo", Labels: map[string]string{"app": "web"},
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "a"}},
		Data: map[string]string{"mode": "fast"}}
	got := Translate(local, "liqo-demo-rome", reflectiontest.Milan()).(*corev1.ConfigMap)
	g.Expect(got.Namespace).To(Equal("liqo-demo-rome"))
	g.Expect(got.Data).To(Equal(local.Data))
	g.Expect(got.Labels).To(HaveKeyWithValue("app", "web"))
	g.Expect(got.Labels).To(HaveKeyWithValue(reflection.DestinationClusterIDLabel, "milan-id"))
	g.Expect(got.Annotations).To(Equal(map[string]string{"team": "a"}))
	g.Expect(reflection.IsCopyFor(got, reflectiontest.Milan())).To(BeTrue())
}

func TestTranslateLeavesTheProvidersRootCA(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Translate(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: RootCAName}}, "ns", reflectiontest.Milan())).To(BeNil())
}

func TestMergeRealignsData(t *testing.T) {
	g := NewWithT(t)
	desired := &corev1.ConfigMap{Data: map[string]string{"mode": "fast"}}
	existing := &corev1.ConfigMap{Data: map[string]string{"mode": "slow"}}
	g.Expect(Merge(desired, existing)).To(BeTrue())
	g.Expect(existing.Data).To(HaveKeyWithValue("mode", "fast"))
	g.Expect(Merge(desired, existing)).To(BeFalse())
}
