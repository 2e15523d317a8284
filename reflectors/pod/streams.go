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
	"fmt"
	"io"
	"net/url"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	vkapi "github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/utils/ptr"
)

// ContainerLogs streams a container's logs from the provider: `kubectl logs`
// on the consumer shows what the provider's API server answers for the pod.
func (h *Handler) ContainerLogs(ctx context.Context, namespace, name, container string, opts vkapi.ContainerLogOpts) (io.ReadCloser, error) {
	remoteNs, err := h.Namespaces(ctx, namespace)
	if err != nil {
		return nil, errdefs.AsNotFound(fmt.Errorf("logs of pod %s/%s: %w", namespace, name, err))
	}
	rc, err := h.Twins.Provider.CoreV1().Pods(remoteNs).GetLogs(name, PodLogOptions(container, opts)).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("logs of container %s of pod %s/%s, read from cluster %s (pod %s/%s there): %w",
			container, namespace, name, h.clusterName(), remoteNs, name, err)
	}
	return rc, nil
}

// PodLogOptions translates virtual-kubelet's log options back to the API's.
func PodLogOptions(container string, o vkapi.ContainerLogOpts) *corev1.PodLogOptions {
	out := &corev1.PodLogOptions{Container: container, Follow: o.Follow, Previous: o.Previous, Timestamps: o.Timestamps}
	if o.Tail > 0 {
		out.TailLines = ptr.To(int64(o.Tail))
	}
	if o.LimitBytes > 0 {
		out.LimitBytes = ptr.To(int64(o.LimitBytes))
	}
	if o.SinceSeconds > 0 {
		out.SinceSeconds = ptr.To(int64(o.SinceSeconds))
	}
	if !o.SinceTime.IsZero() {
		out.SinceTime = &metav1.Time{Time: o.SinceTime}
	}
	return out
}

// RunInContainer runs cmd in the provider's pod through the provider's API
// server and relays the streams: `kubectl exec` on the consumer reaches the
// container that really runs. A provider that cannot exec (kwok without an
// Exec rule, a runtime refusing) answers with an error shown to the user with
// the cluster and pod it came from.
func (h *Handler) RunInContainer(ctx context.Context, namespace, name, container string, cmd []string, attach vkapi.AttachIO) error {
	remoteNs, err := h.Namespaces(ctx, namespace)
	if err != nil {
		return errdefs.AsNotFound(fmt.Errorf("exec in pod %s/%s: %w", namespace, name, err))
	}
	opts := &corev1.PodExecOptions{Container: container, Command: cmd, TTY: attach.TTY(),
		Stdin: attach.Stdin() != nil, Stdout: attach.Stdout() != nil, Stderr: attach.Stderr() != nil}
	u := h.Twins.Provider.CoreV1().RESTClient().Post().Resource("pods").Namespace(remoteNs).Name(name).
		SubResource("exec").VersionedParams(opts, scheme.ParameterCodec).URL()
	exec, err := h.executor(u)
	if err != nil {
		return fmt.Errorf("exec in pod %s/%s on cluster %s: %w", namespace, name, h.clusterName(), err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	streams := remotecommand.StreamOptions{Tty: attach.TTY()}
	if attach.TTY() && attach.Resize() != nil {
		streams.TerminalSizeQueue = sizeQueue{ctx: ctx, ch: attach.Resize()}
	}
	if opts.Stdin {
		streams.Stdin = attach.Stdin()
	}
	if opts.Stdout {
		streams.Stdout = attach.Stdout()
	}
	if opts.Stderr {
		streams.Stderr = attach.Stderr()
	}
	err = exec.StreamWithContext(ctx, streams)
	var exit utilexec.ExitError
	if err == nil || errors.As(err, &exit) {
		// The command ran: its exit status goes back to kubectl unchanged.
		return err
	}
	return fmt.Errorf("exec in container %s of pod %s/%s failed on cluster %s (pod %s/%s there); the provider answered: %w",
		container, namespace, name, h.clusterName(), remoteNs, name, err)
}

// executor speaks WebSocket to the provider and falls back to SPDY, as
// kubectl does, so both old and new API servers are reached.
func (h *Handler) executor(u *url.URL) (remotecommand.Executor, error) {
	ws, err := remotecommand.NewWebSocketExecutor(h.RemoteConfig, "GET", u.String())
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(h.RemoteConfig, "POST", u)
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, shouldFallBackToSPDY)
}

// shouldFallBackToSPDY reports whether a websocket exec failed in a way SPDY
// may not. client-go's websocket transport returns k8s.io/streaming's error
// types: apimachinery's deprecated httpstream copies never match them.
func shouldFallBackToSPDY(err error) bool {
	return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
}

func (h *Handler) clusterName() string {
	if h.ClusterName != "" {
		return h.ClusterName
	}
	return h.RemoteID
}

// sizeQueue relays terminal resizes from the consumer's kubectl until the
// exec ends (virtual-kubelet never closes its channel).
type sizeQueue struct {
	ctx context.Context
	ch  <-chan vkapi.TermSize
}

// Next blocks for the next resize; nil ends the relay.
func (q sizeQueue) Next() *remotecommand.TerminalSize {
	select {
	case s, ok := <-q.ch:
		if !ok {
			return nil
		}
		return &remotecommand.TerminalSize{Width: s.Width, Height: s.Height}
	case <-q.ctx.Done():
		return nil
	}
}
