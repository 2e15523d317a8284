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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func cachedPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
}

// With the informer's index, a pass reads the very pods the informer holds,
// of the namespace asked only; the reader, which holds none, is not used.
func TestPodsInReadsTheInformersOwnPods(t *testing.T) {
	g := NewWithT(t)
	index := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	web, api := cachedPod("demo", "web-0"), cachedPod("demo", "api-0")
	for _, p := range []*corev1.Pod{web, api, cachedPod("other", "web-0")} {
		g.Expect(index.Add(p)).To(Succeed())
	}
	h := &Handler{PodIndex: index}
	got, err := h.podsIn(context.Background(), fake.NewClientBuilder().Build(), "demo")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(ConsistOf(BeIdenticalTo(web), BeIdenticalTo(api)), "the informer's objects, not copies of them")
}

// Without the index (no PodIndex, or an indexer lacking the namespace
// index), the pass lists through the cache as before.
func TestPodsInListsThroughTheCacheWithoutTheIndex(t *testing.T) {
	g := NewWithT(t)
	reader := fake.NewClientBuilder().WithObjects(cachedPod("demo", "web-0"), cachedPod("other", "web-1")).Build()
	for name, h := range map[string]*Handler{
		"no index":           {},
		"no namespace index": {PodIndex: toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{})},
	} {
		got, err := h.podsIn(context.Background(), reader, "demo")
		g.Expect(err).NotTo(HaveOccurred(), name)
		g.Expect(got).To(ConsistOf(HaveField("Name", "web-0")), name)
	}
}
