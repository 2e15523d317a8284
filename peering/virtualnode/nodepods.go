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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// nodePods is virtual-kubelet's informer of the pods bound to one virtual
// node, served from the manager's informer of every local pod instead of an
// informer of its own: a second informer held a second decoded copy of every
// offloaded pod (issue 17, lever 6). To virtual-kubelet it looks like an
// informer with a spec.nodeName field selector: its event handlers see only
// the node's pods (a pod entering the node, when the scheduler binds it, is
// an add), and its lister finds only them. The shared informer outlives the
// node, so release removes the handlers virtual-kubelet added.
//
// The pods are the manager cache's own objects, read by its controllers too.
// virtual-kubelet v1.13.0 writes into a pod it got from the lister in one
// place only, handleProviderError, after CreatePod or UpdatePod failed; the
// pod handler (reflectors/pod) never returns such a failure (it retries
// itself), and a PodHandler that did would need the informer of its own.
type nodePods struct {
	all      toolscache.SharedIndexInformer
	nodeName string

	mu   sync.Mutex
	regs []toolscache.ResourceEventHandlerRegistration
}

func newNodePods(all toolscache.SharedIndexInformer, nodeName string) *nodePods {
	return &nodePods{all: all, nodeName: nodeName}
}

// Informer is the shared informer, its event handlers filtered to the node.
func (p *nodePods) Informer() toolscache.SharedIndexInformer { return nodeInformer{p.all, p} }

// Lister lists and gets the node's pods only.
func (p *nodePods) Lister() corev1listers.PodLister {
	return nodePodLister{all: corev1listers.NewPodLister(p.all.GetIndexer()), nodeName: p.nodeName}
}

// release removes every event handler added through Informer.
func (p *nodePods) release() {
	p.mu.Lock()
	regs := p.regs
	p.regs = nil
	p.mu.Unlock()
	for _, reg := range regs {
		_ = p.all.RemoveEventHandler(reg)
	}
}

// onNode reports whether an informer's object, or a deletion's last known
// state, is a pod bound to the node.
func (p *nodePods) onNode(obj any) bool {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	return ok && pod.Spec.NodeName == p.nodeName
}

func (p *nodePods) add(h toolscache.ResourceEventHandler,
	register func(toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error)) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := register(toolscache.FilteringResourceEventHandler{FilterFunc: p.onNode, Handler: h})
	if err == nil {
		p.mu.Lock()
		p.regs = append(p.regs, reg)
		p.mu.Unlock()
	}
	return reg, err
}

// nodeInformer is the shared informer with its event handlers filtered to
// the node and tracked for release; everything else is the shared one's.
type nodeInformer struct {
	toolscache.SharedIndexInformer
	p *nodePods
}

func (i nodeInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.p.add(h, i.SharedIndexInformer.AddEventHandler)
}

func (i nodeInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, resync time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.p.add(h, func(f toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
		return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(f, resync)
	})
}

func (i nodeInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, opts toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.p.add(h, func(f toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
		return i.SharedIndexInformer.AddEventHandlerWithOptions(f, opts)
	})
}

// nodePodLister lists the shared informer's pods bound to one node.
type nodePodLister struct {
	all      corev1listers.PodLister
	nodeName string
}

func (l nodePodLister) List(selector labels.Selector) ([]*corev1.Pod, error) {
	pods, err := l.all.List(selector)
	return onNode(pods, l.nodeName), err
}

func (l nodePodLister) Pods(namespace string) corev1listers.PodNamespaceLister {
	return nodePodNamespaceLister{all: l.all.Pods(namespace), nodeName: l.nodeName}
}

type nodePodNamespaceLister struct {
	all      corev1listers.PodNamespaceLister
	nodeName string
}

func (l nodePodNamespaceLister) List(selector labels.Selector) ([]*corev1.Pod, error) {
	pods, err := l.all.List(selector)
	return onNode(pods, l.nodeName), err
}

// Get answers NotFound for a pod of that name bound elsewhere, as a
// node-selected informer would.
func (l nodePodNamespaceLister) Get(name string) (*corev1.Pod, error) {
	pod, err := l.all.Get(name)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName != l.nodeName {
		return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
	}
	return pod, nil
}

func onNode(pods []*corev1.Pod, nodeName string) []*corev1.Pod {
	out := pods[:0:0]
	for _, pod := range pods {
		if pod.Spec.NodeName == nodeName {
			out = append(out, pod)
		}
	}
	return out
}
