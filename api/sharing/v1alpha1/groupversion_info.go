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

// Package v1alpha1 holds the sharing.liqo.io API: ResourceOffer, the
// amount of compute a provider cluster makes available to one consumer cluster.
//
// The group and version match Liqo's v1alpha1 API so that manifests written for
// Liqo apply unchanged; Spillway only adds optional fields on top.
//
// +kubebuilder:object:generate=true
// +groupName=sharing.liqo.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion names the API group and version of every kind in this package;
	// clients and the scheme use it to build GroupVersionKinds.
	GroupVersion = schema.GroupVersion{Group: "sharing.liqo.io", Version: "v1alpha1"}

	// SchemeBuilder collects the kinds of this package so that they can be
	// registered in a runtime.Scheme in one call.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme registers every kind of this package in a runtime.Scheme;
	// controllers and tests call it before creating clients or decoders.
	AddToScheme = SchemeBuilder.AddToScheme
)
