# cluster.mk: the real etcd and kube-apiserver that podwatch's tests run
# (internal/cluster). The main Makefile includes this file.
#
#   make cluster-bins   build etcd, kube-apiserver and kubectl (1.37, 1.32)
#                       into CLUSTER_BIN_DIR, only when
#                       missing or when a nested go.mod/go.sum changed
#                       (a cold kube-apiserver build takes several minutes)
#
# CLUSTER_BIN_DIR is exported as PODWATCH_CLUSTER_BIN_DIR, so tests run by
# make use the same folder.

CLUSTER_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CLUSTER_BIN_DIR ?= $(CLUSTER_ROOT)/.cache/bin
export PODWATCH_CLUSTER_BIN_DIR := $(CLUSTER_BIN_DIR)

.PHONY: cluster-bins
cluster-bins:
	cd $(CLUSTER_ROOT) && GOTOOLCHAIN=local go run ./internal/cluster/cmd/cluster-bins -bin-dir '$(CLUSTER_BIN_DIR)'
