# frontmail-bench in a container, for sharded runs on Kubernetes (deploy/kubernetes/,
# docs/distributed.md). Built on the official Swift image; the runtime image carries the tool (its
# Swift libraries linked in), the scenario files and the scale-out scenarios.
#   docker build -t frontmail-bench:latest .
ARG SWIFT_IMAGE=swift:6.1-noble
ARG RUNTIME_IMAGE=ubuntu:24.04

FROM ${SWIFT_IMAGE} AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources Sources
COPY Benchmarks Benchmarks
COPY Tests Tests
RUN swift build -c release --product frontmail-bench --static-swift-stdlib \
    && cp "$(swift build -c release --show-bin-path)/frontmail-bench" /usr/local/bin/frontmail-bench

FROM ${RUNTIME_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libcurl4 libxml2 tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/frontmail-bench /usr/local/bin/frontmail-bench
WORKDIR /app
COPY scenarios scenarios
COPY Benchmarks/ScaleOut Benchmarks/ScaleOut
COPY tune tune
ENTRYPOINT ["frontmail-bench"]
CMD ["--help"]
