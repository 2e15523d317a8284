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

package framework

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RunsPodsAgainWithin is how long a lab cluster may take, after its API
// server comes back, to run a new pod again: client-go's reflectors back off
// to [30 s, 60 s) while the API server is gone, and a first retry refused
// while the new API server's RBAC is still loading waits as long again.
// Measured in the broker lab (milan down 90 to 150 s): its scheduler bound a
// pod created at the restart 23, 38 and 47 s later; the CI run that failed
// waited 2 minutes.
const RunsPodsAgainWithin = 3 * time.Minute

// RunsPodsAgain waits until cluster c schedules and runs a new pod again. A
// spec that stopped the cluster's API server calls it before handing the
// cluster on: the API server answering does not mean its scheduler and its
// kwok (the nodes' kubelet stand-in) watch again, and a later spec whose
// pods stayed Pending would fail for another spec's outage. The pod is
// a bare one in the default namespace, deleted before returning. It returns
// how long the pod took to run.
func RunsPodsAgain(ctx context.Context, c client.Client, within time.Duration) (time.Duration, error) {
	start := time.Now()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: fmt.Sprintf("runs-pods-again-%d", start.UnixNano())},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(int64(0)),
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	seen := &corev1.Pod{}
	created := false
	err := wait.PollUntilContextTimeout(ctx, time.Second, within, true, func(ctx context.Context) (bool, error) {
		if !created {
			// Refused while the API server is still starting; once the pod
			// exists, each poll is one GET.
			if err := c.Create(ctx, pod.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
				return false, nil
			}
			created = true
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(pod), seen); err != nil {
			return false, nil
		}
		return seen.Status.Phase == corev1.PodRunning, nil
	})
	taken := time.Since(start)
	if err != nil {
		scheduled := "no PodScheduled condition"
		for _, cond := range seen.Status.Conditions {
			if cond.Type == corev1.PodScheduled {
				scheduled = fmt.Sprintf("PodScheduled=%s %s: %s", cond.Status, cond.Reason, cond.Message)
			}
		}
		// Best effort, so a late pod does not outlive the failure; the
		// failure is the finding.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = c.Delete(dctx, pod, client.GracePeriodSeconds(0))
		return taken, fmt.Errorf("a new pod in namespace default, still not Running %s after its creation: node=%q phase=%q, %s: %w",
			taken.Round(time.Second), seen.Spec.NodeName, seen.Status.Phase, scheduled, err)
	}
	if err := c.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		return taken, fmt.Errorf("deleting the pod %s: %w", pod.Name, err)
	}
	return taken, nil
}
