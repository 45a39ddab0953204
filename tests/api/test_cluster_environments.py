"""distributed.initialize's arguments read from SLURM's and Open MPI's environment variables
(jax's rules: the coordinator is the step's first node or mpirun's launcher, the port comes
from the job id unless JAX_COORDINATOR_PORT says otherwise), checked against jax's own
cluster classes on the same environments; the two-process run of
tests/sharding/test_multi_process.py starts one process this way."""

import jax._src.clusters as jax_clusters
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
from funcarray.api.cluster_environments import detect_cluster


def _slurm(job, nodes, ntasks=4, procid=2):
    return {"SLURM_JOB_ID": str(job), "SLURM_STEP_NODELIST": nodes, "SLURM_NTASKS": str(ntasks),
            "SLURM_PROCID": str(procid), "SLURM_LOCALID": "0"}


def _jax_answer(cluster, environ, monkeypatch):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert cluster.is_env_present()
    return (cluster.get_coordinator_address(None, environ.get("JAX_COORDINATOR_PORT")),
            cluster.get_process_count(), cluster.get_process_id())


_HOSTS = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
_NODE_LISTS = st.one_of(
    _HOSTS,
    st.builds(lambda a, b: f"{a},{b}", _HOSTS, _HOSTS),
    st.builds(lambda h, lo, hi, rest: f"{h}[{lo:03d}-{hi:03d}]{rest}", _HOSTS,
              st.integers(0, 50), st.integers(51, 99), st.sampled_from(["", ",other7"])),
    st.builds(lambda h, a, b: f"{h}[{a:03d},{b:03d}-{b + 3:03d}]", _HOSTS,
              st.integers(0, 9), st.integers(10, 90)),
)


@given(job=st.integers(0, 10 ** 9), nodes=_NODE_LISTS,
       port=st.sampled_from([None, "12345"]))
def test_slurm_like_jax(job, nodes, port):
    environ = _slurm(job, nodes)
    if port is not None:
        environ["JAX_COORDINATOR_PORT"] = port
    with pytest.MonkeyPatch.context() as monkeypatch:
        want = _jax_answer(jax_clusters.SlurmCluster, environ, monkeypatch)
    assert detect_cluster(None, environ) == ("slurm", *want)


@pytest.mark.parametrize("uri", [
    "1531576320.0;tcp://10.96.0.1,10.148.0.1,10.108.0.1:34911",
    "1314521088.0;tcp6://[fe80::b9b:ac5d:9cf0:b858,2620:10d:c083:150e::3000:2]:43370",
    "4096.0;tcp://127.0.0.1:1",
])
def test_open_mpi_like_jax(uri, monkeypatch):
    environ = {"OMPI_MCA_orte_hnp_uri": uri, "OMPI_COMM_WORLD_SIZE": "8",
               "OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_LOCAL_RANK": "1"}
    want = _jax_answer(jax_clusters.OmpiCluster, environ, monkeypatch)
    assert detect_cluster(None, environ) == ("ompi", *want)
    assert detect_cluster("ompi", environ) == ("ompi", *want)


def test_overrides_and_choices():
    environ = {**_slurm(7, "n[003-4]"), "JAX_COORDINATOR_ADDRESS": "10.0.0.1:999"}
    assert detect_cluster(None, environ) == ("slurm", "10.0.0.1:999", 4, 2)
    assert detect_cluster(None, {}) is None
    with pytest.raises(RuntimeError, match="not started by ompi"):
        detect_cluster("ompi", environ)
    with pytest.raises(ValueError, match="must be one of 'slurm', 'ompi'"):
        detect_cluster("k8s", environ)
    bad = {"OMPI_MCA_orte_hnp_uri": "1.0;nothing", "OMPI_COMM_WORLD_SIZE": "2",
           "OMPI_COMM_WORLD_RANK": "0"}
    with pytest.raises(RuntimeError, match="cannot read the launcher's address"):
        detect_cluster(None, bad)


def test_initialize_without_arguments_outside_a_cluster(monkeypatch):
    for name in ("SLURM_JOB_ID", "OMPI_MCA_orte_hnp_uri"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="coordinator_address, num_processes, process_id not "
                                         "given"):
        fa.distributed.initialize()
    with pytest.raises(ValueError, match="process_id not given"):
        fa.distributed.initialize("127.0.0.1:1", num_processes=2)
    assert not fa.distributed.is_initialized()
