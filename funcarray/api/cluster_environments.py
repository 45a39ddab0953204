"""The job a process belongs to, read from its cluster's environment variables, for
``distributed.initialize()`` called without arguments (as ``jax.distributed.initialize``).

Each environment says whether it is present and, when it is, the coordinator's address, the
number of processes and this process's id:

* SLURM (``srun``): ``SLURM_JOB_ID``, ``SLURM_STEP_NODELIST`` (the coordinator is the first
  node of the step), ``SLURM_NTASKS``, ``SLURM_PROCID``, ``SLURM_LOCALID``;
* Open MPI (``mpirun``): ``OMPI_MCA_orte_hnp_uri`` (the launcher's address),
  ``OMPI_COMM_WORLD_SIZE``, ``OMPI_COMM_WORLD_RANK``.

The coordinator's port is ``JAX_COORDINATOR_PORT`` when set, else one derived from the job id
in the top 4,096 ports (every process of a job derives the same one), as jax does; a
``JAX_COORDINATOR_ADDRESS`` replaces the whole address. jax's names are kept so that a job
script written for jax starts funcarray unchanged.

Example:
    >>> detect_cluster(None, environ={"SLURM_JOB_ID": "7", "SLURM_STEP_NODELIST": "n[003-4]",
    ...                               "SLURM_NTASKS": "2", "SLURM_PROCID": "1",
    ...                               "SLURM_LOCALID": "1"})
    ('slurm', 'n003:61447', 2, 1)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = ["CLUSTER_NAMES", "detect_cluster"]

_PORTS = 2 ** 12  # the derived port lies in [65535 - 4095, 65535]


def _derived_port(job_id: int, environ: Mapping[str, str]) -> str:
    return environ.get("JAX_COORDINATOR_PORT") or str(job_id % _PORTS + 65536 - _PORTS)


def _first_slurm_node(node_list: str) -> str:
    """The first host of a SLURM node list: ``node001``, ``node001,host2``,
    ``node[001-015],host2`` and ``node[001,007-015]`` all give ``node001``."""
    head = re.match(r"[^,\[]*", node_list).group(0)
    if len(head) == len(node_list) or node_list[len(head)] == ",":
        return head
    first = re.match(r"[^,\-\]]*", node_list[len(head) + 1:]).group(0)
    return head + first


def _slurm(environ: Mapping[str, str]):
    names = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID",
             "SLURM_LOCALID")
    if not all(name in environ for name in names):
        return None
    host = _first_slurm_node(environ["SLURM_STEP_NODELIST"])
    port = _derived_port(int(environ["SLURM_JOB_ID"]), environ)
    return f"{host}:{port}", int(environ["SLURM_NTASKS"]), int(environ["SLURM_PROCID"])


def _open_mpi(environ: Mapping[str, str]):
    uri = environ.get("OMPI_MCA_orte_hnp_uri")
    if uri is None:
        return None
    # e.g. 1531576320.0;tcp://10.96.0.1,10.148.0.1:34911 or
    # 1314521088.0;tcp6://[fe80::b9b:ac5d:9cf0:b858,2620:10d:c083:150e::3000:2]:43370;
    # the job id is a multiple of 4,096, divided out so that jobs get different ports
    launcher = re.search(r"tcp://(.+?)[,:]|tcp6://\[(.+?)[,\]]", uri)
    if launcher is None:
        raise RuntimeError(f"distributed.initialize: cannot read the launcher's address from "
                           f"Open MPI's OMPI_MCA_orte_hnp_uri={uri!r}; pass "
                           f"coordinator_address='host:port'")
    host = next(group for group in launcher.groups() if group is not None)
    port = _derived_port(int(uri.split(".", 1)[0]) // _PORTS, environ)
    return (f"{host}:{port}", int(environ["OMPI_COMM_WORLD_SIZE"]),
            int(environ["OMPI_COMM_WORLD_RANK"]))


_CLUSTERS = {"slurm": _slurm, "ompi": _open_mpi}
CLUSTER_NAMES = tuple(_CLUSTERS)


def detect_cluster(method: str | None, environ: Mapping[str, str] | None = None):
    """``(name, coordinator_address, num_processes, process_id)`` of the first cluster
    environment present (or of ``method``, one of ``CLUSTER_NAMES``), or None when none is.
    ``JAX_COORDINATOR_ADDRESS`` overrides the address."""
    environ = os.environ if environ is None else environ
    if method is not None and method not in _CLUSTERS:
        raise ValueError(f"distributed.initialize: cluster_detection_method must be one of "
                         f"{', '.join(map(repr, CLUSTER_NAMES))}, got {method!r}")
    for name in [method] if method is not None else CLUSTER_NAMES:
        found = _CLUSTERS[name](environ)
        if found is not None:
            address, count, index = found
            return name, environ.get("JAX_COORDINATOR_ADDRESS") or address, count, index
    if method is not None:
        raise RuntimeError(f"distributed.initialize: cluster_detection_method={method!r}, but "
                           f"this process was not started by {method} (its environment "
                           f"variables are missing)")
    return None
