#!/usr/bin/env bash
# The docker sandbox's tests need a Docker engine. Where none answers and we are root on a
# Debian-like machine: install docker.io (and debootstrap, which builds lab's image where no
# registry answers), start dockerd in the background, and stop it again on exit (the caller's
# EXIT trap calls lab_stop_docker). Otherwise those tests skip and say why. Sourced by test.sh.
LAB_DOCKERD_PID=""
lab_docker_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
if [ "$(uname -s)" = Linux ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "== installing ${missing[*]} for the docker sandbox's tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
      echo "scripts/test.sh: could not install ${missing[*]}; the docker sandbox's tests will skip." >&2
  fi
  if command -v dockerd >/dev/null && ! lab_docker_answers; then
    mkdir -p .cache
    echo "== starting dockerd (log: .cache/dockerd.log)"
    dockerd >.cache/dockerd.log 2>&1 &
    LAB_DOCKERD_PID=$!
    for _ in $(seq 1 60); do lab_docker_answers && break; sleep 0.5; done
    lab_docker_answers || echo "scripts/test.sh: dockerd did not come up (see .cache/dockerd.log); the docker sandbox's tests will skip." >&2
  fi
elif ! lab_docker_answers; then
  echo "No Docker engine answers: the docker sandbox's tests will skip (run as root to have one installed and started)." >&2
fi

# Stops the dockerd this script started, if any.
lab_stop_docker() {
  if [ -n "$LAB_DOCKERD_PID" ]; then
    kill "$LAB_DOCKERD_PID" 2>/dev/null && wait "$LAB_DOCKERD_PID" 2>/dev/null
    LAB_DOCKERD_PID=""
  fi
}
