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

	ctrl "sigs.k8s.io/controller-runtime"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/storage"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// storageFlags configure the provisioner of the virtual storage class liqo.
type storageFlags struct {
	enabled   bool
	namespace string
	class     string
	moveImage string
}

func (f *storageFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.enabled, "enable-storage", true, "provision claims of the virtual storage class "+sharingv1alpha1.VirtualStorageClassName)
	fs.StringVar(&f.namespace, "storage-namespace", sharingv1alpha1.DefaultStorageNamespace,
		"namespace of the twin claims of "+sharingv1alpha1.VirtualStorageClassName+" claims whose pods run on local nodes")
	fs.StringVar(&f.class, "storage-class", "",
		"real StorageClass of those twin claims; empty: the cluster's default class")
	fs.StringVar(&f.moveImage, "volume-move-image", DefaultVolumeMoveImage,
		"image with rsync and a POSIX shell that runs the copy Jobs of VolumeMoves; pin it by digest in production")
}

// DefaultVolumeMoveImage runs the copy Jobs of a VolumeMove: any image with
// rsync 3 and /bin/sh will do.
const DefaultVolumeMoveImage = "docker.io/instrumentisto/rsync-ssh:alpine3.21"

// setup registers the virtual class's provisioner, its volume reclaimer and its mover.
func (f storageFlags) setup(mgr ctrl.Manager, peers *remote.Registry, clusterID string) error {
	if !f.enabled {
		return nil
	}
	vs := &storage.VirtualStorageReconciler{Client: mgr.GetClient(), Peers: peers, LocalClusterID: clusterID,
		StorageNamespace: f.namespace, LocalStorageClass: f.class, Recorder: mgr.GetEventRecorder("spillway-virtual-storage")}
	if err := vs.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the virtual storage provisioner: %w", err)
	}
	if err := (&storage.VirtualVolumeReconciler{Client: mgr.GetClient(), Peers: peers}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the virtual volume reclaimer: %w", err)
	}
	mover := &storage.VolumeMoveReconciler{Client: mgr.GetClient(), Peers: peers, LocalStorageClass: f.class, Image: f.moveImage,
		Recorder: mgr.GetEventRecorder("spillway-volume-move")}
	if err := mover.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the volume mover: %w", err)
	}
	return nil
}
