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

package webhooks

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/webhooks/twinobjects"
)

// Who removes the webhook configurations when Spillway is uninstalled.
//
// They are published at run time, so Flux, which prunes only what it
// applied, would leave them behind: a Fail-policy pod webhook with no server
// blocks every pod of the labelled namespaces. Each configuration therefore
// carries an ownerReference to the manager's ClusterRole, a cluster-scoped
// object of kustomize/rbac that Flux applies and prunes; when it goes, the
// API server's garbage collector deletes the configurations.
//
// Declaring them in kustomize/ with only the CA bundle patched at run time
// was the alternative. It was not taken because a manager outside the
// cluster (the lab, --webhook-url) needs clientConfig.url instead of the
// Service, a field Flux would own and the manager would have to fight over;
// because Flux would apply a Fail-policy webhook without a CA before the
// manager has made one, refusing pods until it does; and because the rules
// would then live in YAML, apart from the handlers and the Go that tests
// them.

// ownerReferences are the owners the configurations carry: the ClusterRole
// named by o.OwnerClusterRole, or none when the option is empty or the
// ClusterRole does not exist (a manager started without kustomize/rbac).
func (o Options) ownerReferences(ctx context.Context, c client.Client) ([]metav1.OwnerReference, error) {
	if o.OwnerClusterRole == "" {
		return nil, nil
	}
	role := &rbacv1.ClusterRole{}
	err := c.Get(ctx, client.ObjectKey{Name: o.OwnerClusterRole}, role)
	if apierrors.IsNotFound(err) {
		ctrl.Log.WithName("webhooks").Info("the owner ClusterRole does not exist: the webhook configurations are published without an owner and will outlive this manager until it appears",
			"clusterRole", o.OwnerClusterRole, "flag", "--webhook-owner-cluster-role")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ClusterRole %s, the owner of the webhook configurations (--webhook-owner-cluster-role): %w", o.OwnerClusterRole, err)
	}
	return ownedBy(role), nil
}

// ownedBy makes role the owner. Not a controller reference and not blocking
// the owner's deletion: the garbage collector only has to delete the
// configurations after it, and blockOwnerDeletion would need delete rights
// on ClusterRoles.
func ownedBy(role *rbacv1.ClusterRole) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole", Name: role.Name, UID: role.UID}}
}

// publisher writes both configurations with the current bundle and owner,
// and the twins' EndpointSlice policy.
// It remembers whether it ever published them owned: once the owner is gone
// after that, the install is being pruned, and republishing would put back,
// unowned, a Fail-policy pod webhook that then outlives this manager.
type publisher struct {
	client  client.Client
	options Options
	owned   bool
}

func (p *publisher) publish(ctx context.Context, ca []byte) error {
	owners, err := p.options.ownerReferences(ctx, p.client)
	if err != nil {
		return err
	}
	if owners != nil {
		p.owned = true
	} else if p.owned {
		ctrl.Log.WithName("webhooks").Info("the owner ClusterRole is gone: the install is being removed, so the webhook configurations are left to the garbage collector and not republished until it is back",
			"clusterRole", p.options.OwnerClusterRole)
		return nil
	}
	wantM, wantV := Configurations(p.options, ca, p.slicePolicyInForce(ctx, owners))
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: wantM.Name}}
	if _, err := p.write(ctx, m, owners, func() { m.Webhooks = wantM.Webhooks }); err != nil {
		return fmt.Errorf("publishing MutatingWebhookConfiguration %s: %w", m.Name, err)
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: wantV.Name}}
	if _, err := p.write(ctx, v, owners, func() { v.Webhooks = wantV.Webhooks }); err != nil {
		return fmt.Errorf("publishing ValidatingWebhookConfiguration %s: %w", v.Name, err)
	}
	return nil
}

// slicePolicyInForce publishes twinobjects.SlicePolicy and its binding, and
// reports whether they were already in place, as wanted, before this pass:
// only then does the webhook stop judging the twins' EndpointSlices. The API
// server enforces a new or changed policy a moment after storing it, so for
// one interval both judge and no slice goes unjudged. Where the API server
// refuses the policy (admission policies disabled, or a Kubernetes too old
// for its CEL), the webhook keeps judging slices and every pass says why.
func (p *publisher) slicePolicyInForce(ctx context.Context, owners []metav1.OwnerReference) bool {
	wantP, wantB := twinobjects.SlicePolicy(p.options.ProviderRanges)
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: wantP.Name}}
	policyChanged, err := p.write(ctx, policy, owners, func() { policy.Spec = wantP.Spec })
	bindingChanged := false
	if err == nil {
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: wantB.Name}}
		bindingChanged, err = p.write(ctx, binding, owners, func() { binding.Spec = wantB.Spec })
	}
	if err != nil {
		ctrl.Log.WithName("webhooks").Error(err, "the API server did not take the policy for the twins' EndpointSlices: the twin objects webhook keeps judging them",
			"validatingAdmissionPolicy", wantP.Name)
		return false
	}
	return !policyChanged && !bindingChanged
}

// write creates or updates one configuration, unless its owner is gone: a
// manager that never saw the owner (restarted while the install is pruned)
// must not strip the reference the garbage collector is about to act on.
// It reports whether it wrote.
func (p *publisher) write(ctx context.Context, obj client.Object, owners []metav1.OwnerReference, setSpec func()) (bool, error) {
	err := p.client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	switch {
	case apierrors.IsNotFound(err):
		setSpec()
		obj.SetOwnerReferences(owners)
		return true, p.client.Create(ctx, obj)
	case err != nil:
		return false, err
	case owners == nil && ownerGone(obj.GetOwnerReferences(), p.options.OwnerClusterRole):
		return false, nil
	}
	before := obj.DeepCopyObject()
	setSpec()
	obj.SetOwnerReferences(owners)
	if equality.Semantic.DeepEqual(before, obj) {
		return false, nil
	}
	return true, p.client.Update(ctx, obj)
}

// ownerGone reports whether refs name the install's ClusterRole, read as
// missing by the caller: the configuration was owned and is due for
// collection.
func ownerGone(refs []metav1.OwnerReference, role string) bool {
	for _, r := range refs {
		if role != "" && r.Kind == "ClusterRole" && r.Name == role {
			return true
		}
	}
	return false
}
