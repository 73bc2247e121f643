"""The container image and the `docker run` wrappers (recipelint.resolve.docker)."""

from __future__ import annotations

from typing import Any

from recipelint.resolve.docker import (
    NIGHTLY_BUILD,
    OTHER_BUILD,
    DockerMeta,
    Version,
    docker_argv,
    docker_meta,
    docker_run,
    dockerize,
    parse_version,
    runs_other_build,
    unreleased_build,
)

NVIDIA = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8}
AMD = {"brand": "AMD", "generation": "amd", "gpu_count": 8}
META = DockerMeta("vllm/vllm-openai:latest", "--gpus all", ("--gpus", "all"))
ENV = {"HF_TOKEN": "x"}


def _recipe(image: Any) -> dict[str, Any]:
    return {"model": {"model_id": "org/model", "docker_image": image}}


def test_a_cuda_map_without_brand_keys_is_read_on_nvidia_hardware_only() -> None:
    recipe = _recipe("vllm/model-image:1")
    cuda = {"docker_image": {"cu130": "nv:130"}}
    assert docker_meta(recipe, cuda, NVIDIA, "h200").image == "nv:130"
    assert docker_meta(recipe, cuda, AMD, "mi300x").image == "vllm/vllm-openai-rocm:latest"
    # a map that is neither by brand nor by CUDA release leaves the model's image in force
    assert docker_meta(recipe, {"docker_image": {"x": "y"}}, NVIDIA, "h200").image == (
        "vllm/model-image:1"
    )


def test_a_local_model_folder_is_bind_mounted_read_only() -> None:
    argv = ["vllm", "serve", "/models/llama", "--max-model-len", "4096"]
    found = dockerize("vllm serve /models/llama --max-model-len 4096", argv, ENV, META)
    mount = ["-v", "/models/llama:/models/llama:ro"]
    words = found["docker_argv"]
    assert any(words[i : i + 2] == mount for i in range(len(words)))
    assert words[-3:] == ["/models/llama", "--max-model-len", "4096"]
    assert "-v /models/llama:/models/llama:ro" in found["docker_command"]


def test_a_hub_model_or_an_empty_argv_mounts_no_folder() -> None:
    hub = dockerize("vllm serve org/model", ["vllm", "serve", "org/model"], ENV, META)
    assert not any(":ro" in str(word) for word in hub["docker_argv"])
    assert docker_argv(["vllm", "serve", "org/model"], ENV, META, 8000) == hub["docker_argv"]
    bare = dockerize("vllm serve", ["vllm", "serve"], ENV, META)
    assert bare["docker_argv"][-1] == "vllm/vllm-openai:latest"
    assert docker_argv(["vllm", "serve"], ENV, META, 8000) == bare["docker_argv"]


def test_the_wrappers_publish_port_8000_unless_told_another() -> None:
    argv = ["vllm", "serve", "org/model"]
    assert "-p 8000:8000" in dockerize("vllm serve org/model", argv, ENV, META)["docker_command"]
    found = docker_argv(argv, ENV, META, 9000)
    assert found[:6] == ["docker", "run", "--gpus", "all", "--privileged", "--ipc=host"]
    assert found[6:8] == ["-p", "9000:9000"]
    assert found[-4:] == ["-e", "HF_TOKEN=x", "vllm/vllm-openai:latest", "org/model"]


def test_the_argv_form_mounts_a_local_model_folder_as_the_shell_form_does() -> None:
    argv = ["vllm", "serve", "/models/llama", "-tp", "2"]
    found = docker_argv(argv, ENV, META, 8000)
    assert found == dockerize("vllm serve /models/llama -tp 2", argv, ENV, META)["docker_argv"]
    assert found[10:12] == ["-v", "/models/llama:/models/llama:ro"]


def test_an_argv_that_is_no_vllm_serve_is_run_whole_after_the_image() -> None:
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "org/model"]
    found = dockerize(" ".join(argv), argv, ENV, META)
    assert found["docker_argv"][-6:] == ["vllm/vllm-openai:latest", *argv]
    assert found["docker_command"].endswith("vllm/vllm-openai:latest MODEL \\\n  " + " ".join(argv))
    assert docker_argv(argv, ENV, META, 8000) == found["docker_argv"]
    # nothing to serve: the argv form ends at the image
    assert dockerize("", [], {}, META)["docker_argv"][-1] == "vllm/vllm-openai:latest"


def test_the_shell_form_alone_is_the_one_the_wrapper_writes() -> None:
    command = "vllm serve org/model \\\n  --max-model-len 4096"
    argv = ["vllm", "serve", "org/model", "--max-model-len", "4096"]
    found = docker_run(command, ENV, META, 8000)
    assert found == dockerize(command, argv, ENV, META)["docker_command"]
    assert found.endswith(
        "-e HF_TOKEN=x \\\n  vllm/vllm-openai:latest org/model \\\n  --max-model-len 4096"
    )


def test_a_release_version_reads_no_release_candidate_or_post_number() -> None:
    assert parse_version("v0.25.0") == Version(0, 25, 0, 1, 0, 0, "v0.25.0")
    assert parse_version("0.25.0.dev3") == Version(0, 25, 0, 0, 0, 0, "0.25.0.dev3")
    assert parse_version("0.25.0rc2.post1") == Version(0, 25, 0, 0, 2, 1, "0.25.0rc2.post1")


def test_a_nightly_tag_or_an_image_of_another_project_is_no_release() -> None:
    assert unreleased_build("vllm/vllm-openai:nightly") == NIGHTLY_BUILD
    assert unreleased_build("vllm/vllm-openai:nightly-2026-01-10") == NIGHTLY_BUILD
    assert unreleased_build("ghcr.io/acme/vllm:1.0") == OTHER_BUILD
    for image in ("vllm/vllm-openai:v0.20.0", "vllm/vllm-openai:latest", "vllm/nightly", None):
        assert unreleased_build(image) is None  # a release tag, `latest`, none at all


def test_the_image_nearest_a_place_decides_whether_it_runs_another_build() -> None:
    data: dict[str, Any] = {
        "model": {"docker_image": "vllm/vllm-openai:v0.20.0"},
        "variants": {
            "community": {"docker_image": "ghcr.io/acme/vllm:1.0", "extra_args": []},
            "plain": {"extra_args": []},
        },
    }
    assert runs_other_build(data, ("variants", "community", "extra_args"))
    assert not runs_other_build(data, ("variants", "plain", "extra_args"))
    assert not runs_other_build(data, ("model", "base_args"))
    # an image by brand runs another build when any of its images is one
    data["model"]["docker_image"] = {"nvidia": "vllm/vllm-openai:latest", "amd": "rocm/vllm:1"}
    assert runs_other_build(data, ("model", "base_args"))
