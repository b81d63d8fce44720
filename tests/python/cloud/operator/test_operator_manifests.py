"""deploy/kubernetes/ and the objects the operator builds, validated offline: Kubernetes'
own schemas (kubernetes_validate, strict: unknown fields fail) for the built-in kinds; the
SkiffJob CRD's openAPIV3Schema (jsonschema) for SkiffJobs. The CRD's CEL rule (min <= max)
needs an API server, so the operator checks it too (read_spec)."""
import glob
import os

import jsonschema
import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

from operator_cluster_data import skiffjob  # noqa: E402
from skiff.cloud.operator import InvalidJob, job_service, read_spec, worker_pod  # noqa: E402

K8S_VERSION = "1.30"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "deploy", "kubernetes")
DOCS = [(os.path.relpath(path, ROOT), i, doc)
        for path in sorted(glob.glob(os.path.join(ROOT, "**", "*.yaml"), recursive=True))
        for i, doc in enumerate(yaml.safe_load_all(open(path))) if doc]


def skiffjob_schema():
    crd = next(doc for _, _, doc in DOCS if doc["kind"] == "CustomResourceDefinition")
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def check_skiffjob(job):
    jsonschema.Draft202012Validator(skiffjob_schema()).validate(job)


@pytest.mark.parametrize("path, index, doc", DOCS, ids=[f"{p}#{i}" for p, i, _ in DOCS])
def test_manifest_is_valid(path, index, doc):
    if doc["kind"] == "SkiffJob":
        check_skiffjob(doc)
        read_spec(doc)
    else:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_every_kind_is_there():
    kinds = {doc["kind"] for _, _, doc in DOCS}
    assert {"CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
            "Deployment", "StatefulSet", "Service", "PriorityClass", "SkiffJob",
            "HorizontalPodAutoscaler"} <= kinds


def test_built_objects_are_valid():
    job = skiffjob(priorityClassName="skiff-training", env=[{"name": "A", "value": "1"}],
                   resources={"requests": {"cpu": "2", "memory": "4Gi"},
                              "limits": {"nvidia.com/gpu": 1}})
    spec = read_spec(job)
    for obj in (worker_pod(job, spec, 0, "etcd:2379"), worker_pod(job, spec, 3, "e:1", "n2"),
                job_service(job)):
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)


@pytest.mark.parametrize("change", [
    {"workers": {"min": -1, "max": 2}}, {"workers": {"min": 0, "max": 0}},
    {"image": ""}, {"command": []}, {"nprocPerWorker": 0}, {"policy": "fifo"},
    {"maxRestarts": -1}, {"workers": {"min": 1}},
])
def test_invalid_skiffjobs_fail_the_schema(change):
    job = skiffjob()
    job["spec"].update(change)
    with pytest.raises(jsonschema.ValidationError):
        check_skiffjob(job)


def test_min_above_max_passes_the_schema_but_not_the_operator():
    job = skiffjob(low=3, high=2)
    check_skiffjob(job)  # the CEL rule would reject it on a live API server
    with pytest.raises(InvalidJob):
        read_spec(job)
