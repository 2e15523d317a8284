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
	"flag"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/reflectors/configmap"
	"github.com/spillway-dev/spillway/reflectors/endpointslice"
	"github.com/spillway-dev/spillway/reflectors/event"
	"github.com/spillway-dev/spillway/reflectors/ingress"
	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/secret"
	"github.com/spillway-dev/spillway/reflectors/service"
	"github.com/spillway-dev/spillway/reflectors/serviceaccount"
)

// reflectedKinds are the resources that follow an offloaded namespace's pods.
var reflectedKinds = []reflection.Kind{configmap.Kind, secret.Kind, service.Kind, endpointslice.Kind, ingress.Kind}

// reflectionFlags are the virtual kubelet's reflection settings, named as
// Liqo's: --<resource>-reflection-workers (0 disables the resource),
// networking.internal and reflectIPs.
type reflectionFlags struct {
	workers    map[string]*int
	events     int
	tokens     int
	apiServer  bool
	resync     time.Duration
	internal   bool
	reflectIPs bool
}

func (f *reflectionFlags) bind(fs *flag.FlagSet) {
	f.workers = map[string]*int{}
	for _, k := range reflectedKinds {
		f.workers[k.Name] = fs.Int(k.Name+"-reflection-workers", reflection.DefaultWorkers,
			fmt.Sprintf("workers reflecting %ss to each peer; 0 disables %s reflection", k.Name, k.Name))
	}
	fs.IntVar(&f.events, event.Name+"-reflection-workers", 1, "workers copying each peer's events about offloaded pods back here; 0 disables it")
	fs.IntVar(&f.tokens, serviceaccount.Name+"-reflection-workers", 1, "reflect ServiceAccount tokens to each peer (any positive value); 0 disables it")
	fs.BoolVar(&f.apiServer, "enable-apiserver-support", true,
		"give offloaded pods tokens of their ServiceAccounts, kept as Secrets in the provider, to reach this API server; false when the provider's administrators must not get them")
	fs.DurationVar(&f.resync, "reflection-resync-period", reflection.DefaultResync, "how often reflected copies are realigned with their originals")
	fs.BoolVar(&f.internal, "networking-internal", network.DefaultMode.Internal,
		"Liqo's networking.internal: false when the pod networks already route to each other (no gateway; IPs reflected as they are)")
	fs.BoolVar(&f.reflectIPs, "reflect-ips", network.DefaultMode.ReflectIPs,
		"Liqo's networking.reflectIPs: false reflects no IPs (EndpointSlices are not populated)")
}

func (f *reflectionFlags) config(mgr manager.Manager, remaps *network.Registry) *reflection.Config {
	workers := map[string]int{}
	for name, n := range f.workers {
		workers[name] = *n
	}
	events := func(p reflection.Peer) reflection.Starter {
		return &event.Reflector{Peer: p, Provider: p.Provider, Local: mgr.GetClient(), Copies: mgr.GetAPIReader(),
			Watches: mgr.GetCache(), Workers: f.events, Resync: f.resync}
	}
	others := []func(reflection.Peer) reflection.Starter{events}
	if f.apiServer && f.tokens > 0 {
		others = append(others, func(p reflection.Peer) reflection.Starter {
			return &serviceaccount.Reflector{Peer: p, Local: mgr.GetClient(), Watches: mgr.GetCache()}
		})
	}
	return &reflection.Config{Local: mgr.GetCache(), Kinds: reflectedKinds, Workers: workers, Resync: f.resync,
		Network: network.Mode{Internal: f.internal, ReflectIPs: f.reflectIPs, Registry: remaps}, Others: others}
}

// apiServerFor is the API server address offloaded pods get: none when
// ServiceAccount tokens are not carried to the providers.
func (f *reflectionFlags) apiServerFor(url string) string {
	if !f.apiServer || f.tokens <= 0 {
		return ""
	}
	return url
}
