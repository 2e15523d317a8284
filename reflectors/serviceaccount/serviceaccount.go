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

// Package serviceaccount carries ServiceAccount tokens to the provider, so an
// offloaded pod talks to its own (the consumer's) API server with its own
// ServiceAccount's rights, as it would at home. For every ServiceAccount used
// by a pod on this peering's virtual node, it requests a token from the
// consumer and keeps it, renewed, in a Secret of the twin namespace, which
// the pod reflector mounts in place of the provider's token. The seed's
// warning applies: whoever can read Secrets in the twin can use the token;
// --enable-apiserver-support=false turns this off.
package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// Name is the resource's name in flags and metrics.
const Name = "serviceaccount"

// TokenLabel marks the token Secrets, for clean-up.
const TokenLabel = "liqo.io/serviceaccount-token"

// Keys of a token Secret: what a pod finds in its ServiceAccount mount.
const (
	TokenKey     = "token"
	CACertKey    = "ca.crt"
	NamespaceKey = "namespace"
)

// DefaultInterval is how often the tokens are checked without a pod change: a
// token Secret deleted on the provider is back within it. Each pass lists the
// token Secrets of every twin once.
const DefaultInterval = 20 * time.Second

// tokenLifetime is how long a requested token is valid; it is renewed after
// four fifths of it.
const tokenLifetime = time.Hour

// SecretPrefix starts the name of every token Secret; the Secret reflector
// leaves names with it to this reflector.
const SecretPrefix = "liqo-sa-token-"

// SecretName is the twin's Secret holding the token of ServiceAccount sa.
func SecretName(sa string) string { return SecretPrefix + sa }

// ServiceAccountOf is the ServiceAccount whose token a Secret of that name
// holds; ok is false for a name that is not a token Secret's. Names on the
// provider are chosen by users too: nothing is assumed of their length.
func ServiceAccountOf(secretName string) (sa string, ok bool) {
	sa, ok = strings.CutPrefix(secretName, SecretPrefix)
	return sa, ok && sa != ""
}

// IsTokenSecret reports a provider Secret this reflector owns: the Secret
// reflector must neither overwrite nor delete it.
func IsTokenSecret(o client.Object) bool {
	_, named := ServiceAccountOf(o.GetName())
	return named && o.GetLabels()[TokenLabel] == "true"
}

// Reflector keeps the token Secrets of one peering.
type Reflector struct {
	Peer reflection.Peer
	// Local reads pods (indexed by spec.nodeName) and the root CA, and
	// requests tokens.
	Local    client.Client
	Watches  reflection.Local
	Interval time.Duration
	Now      func() time.Time

	cancel context.CancelFunc
	wg     sync.WaitGroup
	nudge  chan struct{}
	// renewAt is when each token must be renewed, by local namespace/sa.
	renewAt map[types.NamespacedName]time.Time
	// inUse counts the node's pods per ServiceAccount whose token they mount,
	// kept by the pod informer's handler (see track).
	inUse serviceAccountsInUse
	// podStore is the pod informer's store when it shows one: the full pass
	// reads the node's pods from it in place (see neededListed).
	podStore toolscache.Store
}

// Start runs the loop: a full pass every Interval, and a pass over what
// changed whenever the set of ServiceAccounts the node's pods use may have
// changed (see wakes) or a namespace's offloading did.
func (r *Reflector) Start(ctx context.Context) error {
	ctx, r.cancel = context.WithCancel(ctx)
	r.nudge, r.renewAt = make(chan struct{}, 1), map[types.NamespacedName]time.Time{}
	pods, err := r.Watches.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return fmt.Errorf("serviceaccount reflection: watching pods: %w", err)
	}
	if s, ok := pods.(interface{ GetStore() toolscache.Store }); ok {
		r.podStore = s.GetStore()
	}
	offloadings, err := r.Watches.GetInformer(ctx, &offloadingv1alpha1.NamespaceOffloading{})
	if err != nil {
		return fmt.Errorf("serviceaccount reflection: watching NamespaceOffloadings: %w", err)
	}
	podHandle, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.pokeIf(r.inUse.track(r.Peer.NodeName, nil, podOf(o))) },
		UpdateFunc: func(old, o any) { r.pokeIf(r.inUse.track(r.Peer.NodeName, podOf(old), podOf(o))) },
		DeleteFunc: func(o any) { r.pokeIf(r.inUse.track(r.Peer.NodeName, podOf(o), nil)) },
	})
	if err != nil {
		return err
	}
	// A pod whose namespace was not offloaded yet got no token (ensure skips
	// it); the offloading's progress is the moment to write it.
	always := func(any) { r.pokeIf(true) }
	offloadingHandle, err := offloadings.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: always, UpdateFunc: func(_, o any) { always(o) }})
	if err != nil {
		_ = pods.RemoveEventHandler(podHandle)
		return err
	}
	r.wg.Go(func() {
		defer func() { _ = pods.RemoveEventHandler(podHandle); _ = offloadings.RemoveEventHandler(offloadingHandle) }()
		r.loop(ctx)
	})
	return nil
}

func (r *Reflector) pokeIf(wake bool) {
	if !wake {
		return
	}
	select {
	case r.nudge <- struct{}{}:
	default:
	}
}

// podOf is the pod an informer hands to a handler, tombstones included; nil
// for anything else.
func podOf(o any) *corev1.Pod {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	p, _ := o.(*corev1.Pod)
	return p
}

// wakes is the pod informer's filter: an event matters only when it changes
// which ServiceAccount the pod needs a token for on this node (a pod
// arriving on the node or leaving it, starting to terminate, or a changed
// ServiceAccount or automount). Status updates, the bulk of a pod's events,
// never do. old is nil for an add, updated nil for a delete.
func wakes(node string, old, updated *corev1.Pod) bool {
	before, hadOne := tokenNeededBy(node, old)
	after, hasOne := tokenNeededBy(node, updated)
	return hadOne != hasOne || before != after
}

// tokenNeededBy is the ServiceAccount whose token p mounts on node, if any.
func tokenNeededBy(node string, p *corev1.Pod) (types.NamespacedName, bool) {
	if p == nil || p.Spec.NodeName != node || !p.DeletionTimestamp.IsZero() ||
		(p.Spec.AutomountServiceAccountToken != nil && !*p.Spec.AutomountServiceAccountToken) {
		return types.NamespacedName{}, false
	}
	sa := p.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	return types.NamespacedName{Namespace: p.Namespace, Name: sa}, true
}

// Stop ends the loop; the Secrets stay until the twins go.
func (r *Reflector) Stop() {
	if r.cancel != nil {
		r.cancel()
		r.wg.Wait()
	}
}

func (r *Reflector) loop(ctx context.Context) {
	interval := r.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	pass := r.syncAll // the first pass is a full one: nothing is known yet
	for {
		err := reflection.Recovering(Name, r.Peer.RemoteClusterID, r.Peer.NodeName, func() error { return pass(ctx) })
		if err != nil && ctx.Err() == nil && !errors.Is(err, reflection.ErrPanicked) {
			reflection.RecordError(Name, r.Peer.RemoteClusterID)
			ctrl.Log.WithName("reflection").V(1).Info("serviceaccount reflection failed, retrying", "peer", r.Peer.RemoteClusterName, "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pass = r.syncAll
		case <-r.nudge:
			pass = r.syncChanged
		}
	}
}

// neededNow is the set of ServiceAccounts the node's pods mount, from the
// counts the pod handler keeps: listing the node's pods on every arrival
// made the reflector O(pods) per pod (make bench at 10,000 pods: 42 % of
// the manager's CPU, and most of its garbage).
func (r *Reflector) neededNow() map[types.NamespacedName]bool {
	return r.inUse.set()
}

// neededListed is the same set read from the node's pods in the cache, for
// the full pass: it does not depend on the handler having seen every pod
// yet (the first pass runs as the handler starts), and it repairs anything
// the counts could ever miss.
//
// The informer's store is read in place, every pod of the cluster checked
// for the node, rather than listed through the cache's index of the node:
// a List copies each pod's struct into its slice, 11 MB every pass at
// 10,000 pods (issue 17, lever 23), where the store's slice of pointers is
// 160 KB. The index itself sits in the same informer, but under keys whose
// format is controller-runtime's internal business.
func (r *Reflector) neededListed(ctx context.Context) (map[types.NamespacedName]bool, error) {
	if r.podStore != nil {
		out := map[types.NamespacedName]bool{}
		for _, o := range r.podStore.List() {
			if sa, ok := tokenNeededBy(r.Peer.NodeName, podOf(o)); ok {
				out[sa] = true
			}
		}
		return out, nil
	}
	pods := &corev1.PodList{}
	if err := r.Local.List(ctx, pods, client.MatchingFields{"spec.nodeName": r.Peer.NodeName}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	return Needed(pods.Items), nil
}

// syncChanged is the pass a pod event triggers: it writes the tokens newly
// needed and deletes those no pod needs any more, by name, without listing
// the provider's Secrets. renewAt holds exactly the tokens written and not
// collected since; the full pass (syncAll, every Interval) repairs anything
// else, a token Secret deleted on the provider included.
func (r *Reflector) syncChanged(ctx context.Context) error {
	needed := r.neededNow()
	var errs []error
	for key := range needed {
		if at, written := r.renewAt[key]; written && r.now().Before(at) {
			continue
		}
		if err := r.ensure(ctx, key, false); err != nil {
			errs = append(errs, err)
		}
	}
	for key := range r.renewAt {
		if needed[key] {
			continue
		}
		if err := r.collectOne(ctx, key); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d token Secrets failed, first: %w", len(errs), errs[0])
	}
	return nil
}

// collectOne deletes the token Secret of sa, which no pod needs any more.
func (r *Reflector) collectOne(ctx context.Context, sa types.NamespacedName) error {
	remoteNs, err := r.Peer.Namespaces(ctx, sa.Namespace)
	if err != nil {
		delete(r.renewAt, sa) // no twin, no Secret; the full pass checks again
		return nil
	}
	s := &corev1.Secret{}
	err = r.Peer.Remote.Get(ctx, client.ObjectKey{Namespace: remoteNs, Name: SecretName(sa.Name)}, s)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case IsTokenSecret(s) && reflection.IsCopyFor(s, &r.Peer):
		// Only ours: a Secret of that name someone put there since is left alone.
		if err := r.Peer.Remote.Delete(ctx, s, client.Preconditions{UID: &s.UID}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	delete(r.renewAt, sa)
	return nil
}

// syncAll is the full pass: it writes the tokens the node's pods need, again
// at once when one went missing on the provider, and deletes the others. It
// lists the token Secrets of every twin, so it runs every Interval, not per
// pod event.
func (r *Reflector) syncAll(ctx context.Context) error {
	needed, err := r.neededListed(ctx)
	if err != nil {
		return err
	}
	present, err := r.present(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for key := range needed {
		if err := r.ensure(ctx, key, present[key] != nil); err != nil {
			errs = append(errs, err)
		}
	}
	if err := r.collect(ctx, needed, present); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d token Secrets failed, first: %w", len(errs), errs[0])
	}
	return nil
}

// Needed lists the ServiceAccounts whose tokens the pods mount.
func Needed(pods []corev1.Pod) map[types.NamespacedName]bool {
	out := map[types.NamespacedName]bool{}
	for i := range pods {
		if sa, ok := tokenNeededBy(pods[i].Spec.NodeName, &pods[i]); ok {
			out[sa] = true
		}
	}
	return out
}

// ensure writes sa's token Secret when it is due for renewal or missing on
// the provider (deleted there by hand: it comes back at the next pass).
func (r *Reflector) ensure(ctx context.Context, sa types.NamespacedName, present bool) error {
	remoteNs, err := r.Peer.Namespaces(ctx, sa.Namespace)
	if err != nil {
		return nil // not offloaded here (yet): the pod waits in OffloadingBackOff
	}
	if at, ok := r.renewAt[sa]; ok && present && r.now().Before(at) {
		return nil
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(tokenLifetime.Seconds()))}}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sa.Namespace, Name: sa.Name}}
	if err := r.Local.SubResource("token").Create(ctx, account, tr); err != nil {
		return fmt.Errorf("requesting a token for ServiceAccount %s: %w", sa, err)
	}
	rootCA := &corev1.ConfigMap{}
	if err := r.Local.Get(ctx, client.ObjectKey{Namespace: sa.Namespace, Name: "kube-root-ca.crt"}, rootCA); err != nil {
		return fmt.Errorf("reading the API server CA in %s: %w", sa.Namespace, err)
	}
	want := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: remoteNs, Name: SecretName(sa.Name), Labels: r.labels()},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{TokenKey: []byte(tr.Status.Token), CACertKey: []byte(rootCA.Data["ca.crt"]),
			NamespaceKey: []byte(sa.Namespace)}}
	if err := r.write(ctx, want); err != nil {
		return err
	}
	lifetime := tokenLifetime
	if !tr.Status.ExpirationTimestamp.IsZero() {
		lifetime = tr.Status.ExpirationTimestamp.Sub(r.now())
	}
	r.renewAt[sa] = r.now().Add(lifetime * 4 / 5)
	return nil
}

func (r *Reflector) labels() map[string]string {
	l := reflection.CopyLabels(&corev1.Secret{}, &r.Peer)
	l[TokenLabel] = "true"
	return l
}

func (r *Reflector) write(ctx context.Context, want *corev1.Secret) error {
	got := &corev1.Secret{}
	err := r.Peer.Remote.Get(ctx, client.ObjectKeyFromObject(want), got)
	switch {
	case apierrors.IsNotFound(err):
		return r.Peer.Remote.Create(ctx, want, client.FieldOwner(reflection.FieldOwner))
	case err != nil:
		return err
	case !reflection.IsCopyFor(got, &r.Peer):
		return fmt.Errorf("token Secret %s/%s on %s exists and is not Spillway's: the token is not written; delete it on %s",
			want.Namespace, want.Name, r.Peer.RemoteClusterName, r.Peer.RemoteClusterName)
	}
	got.Labels, got.Data = want.Labels, want.Data
	return r.Peer.Remote.Update(ctx, got, client.FieldOwner(reflection.FieldOwner))
}

// present finds, in every twin of this peer, the token Secrets that exist,
// by the local ServiceAccount they hold the token of. A Secret carrying the
// token labels under a name that is not a token Secret's is not Spillway's
// token and is left out (the Secret reflector never writes such a copy).
func (r *Reflector) present(ctx context.Context) (map[types.NamespacedName]*corev1.Secret, error) {
	offloadings := &offloadingv1alpha1.NamespaceOffloadingList{}
	if err := r.Local.List(ctx, offloadings); err != nil {
		return nil, err
	}
	out := map[types.NamespacedName]*corev1.Secret{}
	for _, no := range offloadings.Items {
		remoteNs, err := r.Peer.Namespaces(ctx, no.Namespace)
		if err != nil {
			continue
		}
		secrets := &corev1.SecretList{}
		if err := r.Peer.Remote.List(ctx, secrets, client.InNamespace(remoteNs), client.MatchingLabels(r.labels())); err != nil {
			return nil, err
		}
		for i := range secrets.Items {
			if sa, ok := ServiceAccountOf(secrets.Items[i].Name); ok {
				out[types.NamespacedName{Namespace: no.Namespace, Name: sa}] = &secrets.Items[i]
			}
		}
	}
	return out, nil
}

// collect deletes the token Secrets no pod needs.
func (r *Reflector) collect(ctx context.Context, needed map[types.NamespacedName]bool, present map[types.NamespacedName]*corev1.Secret) error {
	for sa, s := range present {
		if needed[sa] {
			continue
		}
		if err := r.Peer.Remote.Delete(ctx, s); client.IgnoreNotFound(err) != nil {
			return err
		}
		delete(r.renewAt, sa)
	}
	return nil
}

func (r *Reflector) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
