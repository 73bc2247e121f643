"""The container image and the `docker run` wrappers (recipelint.resolve.docker)."""

from __future__ import annotations

from typing import Any

from recipelint.resolve.docker import DockerMeta, docker_argv, docker_meta, dockerize

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
