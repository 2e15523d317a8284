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
	"fmt"
	"time"

	vknode "github.com/virtual-kubelet/virtual-kubelet/node"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// PodHandler is what a virtual node needs to run pods: virtual-kubelet's
// lifecycle handler, with status notifications.
type PodHandler interface {
	vknode.PodLifecycleHandler
	vknode.PodNotifier
}

// runPods starts virtual-kubelet's pod controller for the node: it watches the
// local pods bound to it and drives handler. It returns once the controller is
// ready, or with the reason it could not start. Everything it starts ends
// with ctx. localPods, when set, is the manager's informer of every local
// pod (see Options.LocalPods).
func runPods(ctx context.Context, local kubernetes.Interface, nodeName string, handler PodHandler, workers int,
	localPods toolscache.SharedIndexInformer) error {
	pods, release := podsOfNode(ctx, local, nodeName, localPods)
	// virtual-kubelet wants listers of ConfigMaps, Secrets and Services to
	// resolve the downward API, which Spillway skips (the provider resolves
	// the environment from the reflected objects): this factory is never
	// started, so no cluster-wide cache is kept for them.
	unused := informers.NewSharedInformerFactory(local, 0)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: local.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "spillway-virtual-kubelet", Host: nodeName})
	pc, err := vknode.NewPodController(vknode.PodControllerConfig{
		PodClient: local.CoreV1(), PodInformer: pods, EventRecorder: withoutCallSuccesses{recorder}, Provider: handler,
		ConfigMapInformer: unused.Core().V1().ConfigMaps(), SecretInformer: unused.Core().V1().Secrets(), ServiceInformer: unused.Core().V1().Services(),
		SkipDownwardAPIResolution: true,
		// Work on a pod is never dropped: virtual-kubelet's default gives up
		// after 20 attempts (about a minute of refused connections at this
		// backoff), leaving a deleted pod Terminating for good. Retries back
		// off to podRetryCap at most, so an outage's end is noticed soon.
		SyncPodsFromKubernetesRateLimiter:        boundedBackoff(),
		SyncPodsFromKubernetesShouldRetryFunc:    retryForever,
		SyncPodStatusFromProviderRateLimiter:     boundedBackoff(),
		SyncPodStatusFromProviderShouldRetryFunc: retryForever,
		DeletePodsFromKubernetesRateLimiter:      boundedBackoff(),
		DeletePodsFromKubernetesShouldRetryFunc:  retryForever,
	})
	if err == nil {
		err = observeDeletions(pods, handler)
	}
	if err != nil {
		broadcaster.Shutdown()
		release()
		return fmt.Errorf("virtual node %s: pod controller: %w", nodeName, err)
	}
	go func() {
		_ = pc.Run(ctx, workers)
		broadcaster.Shutdown()
		release()
	}()
	select {
	case <-pc.Ready():
		return nil
	case <-pc.Done():
		return fmt.Errorf("virtual node %s: pod controller stopped: %w", nodeName, pc.Err())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DeletionObserver is a PodHandler that learns of every deletion of the
// node's pods the informer delivers to virtual-kubelet, as virtual-kubelet
// does, before its queue reaches them (see reflectors/pod LocalPodDeleted).
type DeletionObserver interface {
	LocalPodDeleted(pod *corev1.Pod)
}

// observeDeletions registers handler, when it is a DeletionObserver, for the
// deletions virtual-kubelet's informer delivers. Like virtual-kubelet it
// skips tombstones (deletions inferred from a relist), which it does not
// hand to DeletePod.
func observeDeletions(pods corev1informers.PodInformer, handler PodHandler) error {
	o, ok := handler.(DeletionObserver)
	if !ok {
		return nil
	}
	_, err := pods.Informer().AddEventHandler(deletionHandler(o))
	return err
}

func deletionHandler(o DeletionObserver) toolscache.ResourceEventHandlerFuncs {
	return toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			o.LocalPodDeleted(pod)
		}
	}}
}

// podsOfNode is the informer of the node's pods virtual-kubelet works
// from, and what to call once it is done with it. With the manager's
// informer of every local pod it is a filtered view of that one (nodePods),
// which holds no pod of its own; without it, an informer of the node's pods
// only, started here and stopped with ctx.
func podsOfNode(ctx context.Context, local kubernetes.Interface, nodeName string,
	localPods toolscache.SharedIndexInformer) (corev1informers.PodInformer, func()) {
	if localPods != nil {
		p := newNodePods(localPods, nodeName)
		return p, p.release
	}
	// Managed fields are a large share of every cached object and nothing
	// here reads them.
	byNode := informers.NewSharedInformerFactoryWithOptions(local, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", nodeName).String()
	}), informers.WithTransform(crcache.TransformStripManagedFields()))
	pods := byNode.Core().V1().Pods()
	pods.Informer() // registered before the start
	byNode.Start(ctx.Done())
	return pods, func() {}
}

// podRetryCap bounds the backoff of virtual-kubelet's queues.
const podRetryCap = 10 * time.Second

func boundedBackoff() workqueue.TypedRateLimiter[any] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[any](10*time.Millisecond, podRetryCap)
}

// retryForever is virtual-kubelet's retry policy without its cap on
// attempts: every failure is retried after the rate limiter's delay.
func retryForever(context.Context, string, int, time.Time, error) (*time.Duration, error) {
	return nil, nil
}
