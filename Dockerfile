# syntax=docker/dockerfile:1
# The kubectl-cpulint container image (docs/action.md, Container image):
#   docker build -t kubectl-cpulint .
#   docker run --rm -v "$PWD:/src:ro" kubectl-cpulint .
# Stage build makes the release binary as `make dist` does (static
# libraries, the C library dynamic) for the architecture it runs on, and
# unpacks its tarball into /out; its packages are every library the
# Makefile asks for (libmicrohttpd's header too: `serve` loads the
# library at run time).  The final stage is Debian's slim image with what
# live mode and `serve` load (libcurl 4, libmicrohttpd 12, CA
# certificates), the binary, its completion hook and manual page, run as
# the unprivileged user cpulint (uid 65532).  tests/e2e/image.sh runs
# both stages as `docker build` would, without Docker: each stage's root
# filesystem from the same Debian packages (mmdebstrap), the build
# stage's COPY of the repository (less .dockerignore) and its RUN lines,
# then the final stage from the build stage's /out, and runs the tool,
# `serve` and a live command in the result: keep each stage to the lines
# it reads (FROM, one RUN apt-get install, WORKDIR, COPY, ARG, RUN; in
# the final stage one RUN useradd, COPY --from=build, USER, ENTRYPOINT).

FROM debian:bookworm AS build
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        gcc libc6-dev make pkg-config binutils dpkg-dev check \
        libyaml-dev libjansson-dev libgit2-dev libcurl4-openssl-dev \
        libjemalloc-dev libgpg-error-dev libmicrohttpd-dev && \
    rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# SOURCE_DATE_EPOCH: the tarball's file times (the commit's, when given).
ARG SOURCE_DATE_EPOCH=0
RUN make -j"$(nproc)" dist-tar-"$(dpkg --print-architecture)" \
        SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" && \
    mkdir /out && \
    tar -C /out -xzf kubectl-cpulint-v*-linux-"$(dpkg --print-architecture)".tar.gz

FROM debian:bookworm-slim
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libcurl4 libmicrohttpd12 ca-certificates && \
    rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 65532 --user-group --create-home --home-dir /home/cpulint --shell /usr/sbin/nologin cpulint
COPY --from=build /out/kubectl-cpulint /out/kubectl_complete-cpulint /usr/local/bin/
COPY --from=build /out/kubectl-cpulint.1 /usr/local/share/man/man1/
COPY --from=build /out/LICENSE /out/NOTICE /out/THIRD-PARTY-LICENSES /usr/local/share/doc/kubectl-cpulint/
USER 65532:65532
WORKDIR /src
ENTRYPOINT ["kubectl-cpulint"]
