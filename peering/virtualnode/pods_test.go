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
	"errors"
	"testing"
	"time"

	vknode "github.com/virtual-kubelet/virtual-kubelet/node"
)

// virtual-kubelet's default forgets a pod after MaxRetries failures; ours
// retries every failure, and the delay between attempts stays bounded.
func TestPodWorkIsRetriedWithoutCapAndBoundedBackoff(t *testing.T) {
	refused := errors.New("connection refused")
	for _, tries := range []int{1, vknode.MaxRetries, vknode.MaxRetries + 1, 10_000} {
		delay, err := retryForever(context.Background(), "apps/web", tries, time.Now(), refused)
		if err != nil || delay != nil {
			t.Errorf("after %d failures: delay %v, error %v; want a retry at the rate limiter's pace", tries, delay, err)
		}
	}
	if _, err := vknode.DefaultRetryFunc(context.Background(), "apps/web", vknode.MaxRetries, time.Now(), refused); err == nil {
		t.Fatal("virtual-kubelet's default no longer gives up: this policy may be unneeded")
	}
	rl := boundedBackoff()
	var last time.Duration
	for range 100 {
		last = rl.When("apps/web")
	}
	if last > podRetryCap || last < podRetryCap/2 {
		t.Errorf("after 100 failures the backoff is %s, want it capped at %s", last, podRetryCap)
	}
}
