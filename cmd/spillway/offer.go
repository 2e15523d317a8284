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

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/policies"
)

func newGenerateCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "generate",
		Short: "Generate a provider's manifests",
	}
	c.AddCommand(newGenerateOfferCommand())
	return c
}

type offerOptions struct {
	target
	clusterID  string
	cpu        string
	memory     string
	gpu        string
	percentage int32
	labels     []string
	broker     bool
	expose     string
}

func newGenerateOfferCommand() *cobra.Command {
	o := &offerOptions{}
	c := &cobra.Command{
		Use:   "offer CONSUMER",
		Short: "Write the ResourceOffer and PushSecret with which a provider lends resources to CONSUMER",
		Long: `Writes, into the provider's config folder, a ResourceOffer for CONSUMER and the
PushSecret that copies the credentials the provider issues to CONSUMER into
the ClusterSecretStore fleet-secrets. CONSUMER's side is written by
"spillway peer".

The offer is either fixed (--cpu, --memory, --gpu) or a percentage of the
provider's free allocatable resources (--sharing-percentage, default 90).
--label adds a cluster label copied onto CONSUMER's virtual node, for
cluster selectors. --broker makes this cluster CONSUMER's broker: the offer is
a percentage of its providers' virtual nodes, where CONSUMER's pods then run;
with it, --expose-labels lists label keys copied from those virtual nodes
onto CONSUMER's virtual node, with the value the providers agree on (a key
they disagree on is left out, and the offer says so).
--cluster-id defaults to the CLUSTER_ID in
<fleet>/CONSUMER/install when CONSUMER is in the fleet.`,
		Example: `  spillway generate offer rome --cluster milan --label topology.liqo.io/region=north
  spillway generate offer rome --cluster naples --cpu 4 --memory 16Gi --gpu 1
  spillway generate offer rome --cluster genoa --broker --expose-labels topology.kubernetes.io/region,topology.kubernetes.io/zone`,
		Args: exactArgs("CONSUMER"),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args[0]) },
	}
	c.Flags().StringVar(&o.clusterID, "cluster-id", "", "CONSUMER's cluster ID (default: from the fleet)")
	c.Flags().StringVar(&o.cpu, "cpu", "", "a fixed amount of CPU, e.g. 4 or 1500m")
	c.Flags().StringVar(&o.memory, "memory", "", "a fixed amount of memory, e.g. 16Gi")
	c.Flags().StringVar(&o.gpu, "gpu", "", "a fixed number of "+string(manifests.GPUResource))
	c.Flags().Int32Var(&o.percentage, "sharing-percentage", 0, "offer this percentage (1-100) of free allocatable resources instead")
	c.Flags().BoolVar(&o.broker, "broker", false, "resell this cluster's providers to CONSUMER: offer a percentage of its virtual nodes, and run CONSUMER's pods on them")
	c.Flags().StringVar(&o.expose, "expose-labels", "", "with --broker: comma-separated label keys copied from the providers' virtual nodes onto CONSUMER's, e.g. topology.kubernetes.io/region")
	c.Flags().StringArrayVar(&o.labels, "label", nil, "a cluster label key=value for CONSUMER's virtual node; repeatable")
	o.bind(c, "the provider, whose config folder is written", true)
	return c
}

func (o *offerOptions) run(c *cobra.Command, consumer string) error {
	if errs := validation.IsDNS1123Label(consumer); len(errs) > 0 {
		return usageErrorf("consumer %q: %s: use the consumer's lowercase name, e.g. rome", consumer, strings.Join(errs, "; "))
	}
	offer := manifests.Offer{Provider: o.cluster, Consumer: consumer, Limits: corev1.ResourceList{}}
	for _, l := range []struct {
		flag, value string
		name        corev1.ResourceName
	}{{"cpu", o.cpu, corev1.ResourceCPU}, {"memory", o.memory, corev1.ResourceMemory}, {"gpu", o.gpu, manifests.GPUResource}} {
		if l.value == "" {
			continue
		}
		q, err := resource.ParseQuantity(l.value)
		if err != nil || q.Sign() <= 0 {
			return usageErrorf("--%s %q is not a positive quantity: write it like 4, 1500m or 16Gi", l.flag, l.value)
		}
		offer.Limits[l.name] = q
	}
	if c.Flags().Changed("sharing-percentage") {
		if len(offer.Limits) > 0 {
			return usageErrorf("--sharing-percentage and --cpu/--memory/--gpu are mutually exclusive: offer fixed amounts or a percentage of free allocatable resources, not both")
		}
		if o.percentage < 1 || o.percentage > 100 {
			return usageErrorf("--sharing-percentage %d is outside 1-100: give a percentage of the provider's free allocatable resources", o.percentage)
		}
		p := o.percentage
		offer.SharingPercentage = &p
	}
	if o.broker {
		if len(offer.Limits) > 0 {
			return usageErrorf("--broker and --cpu/--memory/--gpu are mutually exclusive: a broker offers a percentage of its providers' offers (--sharing-percentage)")
		}
		offer.Broker = true
	}
	if c.Flags().Changed("expose-labels") {
		if !o.broker {
			return usageErrorf("--expose-labels needs --broker: only a broker derives labels from its providers' virtual nodes; add --broker, or give the labels with --label key=value")
		}
		keys, err := policies.ParseExposedLabelKeys(o.expose)
		if err != nil {
			return usageErrorf("--expose-labels: %v", err)
		}
		offer.ExposedLabelKeys = keys
	}
	if len(o.labels) > 0 {
		offer.Labels = map[string]string{}
	}
	for _, kv := range o.labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageErrorf("--label %q has no '=': write it as key=value, e.g. topology.liqo.io/region=north", kv)
		}
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			return usageErrorf("--label %q: %s: write it as key=value, e.g. topology.liqo.io/region=north", kv, strings.Join(errs, "; "))
		}
		offer.Labels[k] = v
	}
	if err := o.validate(true); err != nil {
		return err
	}
	o.clusterID = strings.TrimSpace(o.clusterID)
	if o.clusterID == "" {
		if id, err := o.fleetDir().Identity(consumer); err == nil {
			o.clusterID = id.ClusterID
		}
	}
	if o.clusterID == "" {
		return usageErrorf("--cluster-id is required: %s's CLUSTER_ID (no %s declares it)", consumer, o.fleetDir().InstallDir(consumer))
	}
	offer.ClusterID = o.clusterID
	if len(offer.Limits) == 0 {
		offer.Limits = nil
	}
	if err := o.emit(c, offer.Files()...); err != nil {
		return err
	}
	if o.output == "" {
		fmt.Fprintf(c.OutOrStdout(), "%s now offers to %s; %s's side is written by: spillway peer %s --cluster %s\n", o.cluster, consumer, consumer, o.cluster, consumer)
	}
	return nil
}
