# frontmail-bench in a container, for sharded runs on Kubernetes (deploy/kubernetes/,
# docs/distributed.md). Built on the official Swift image; the runtime image carries the tool (its
# Swift libraries linked in), the scenario files, the scale-out scenarios, the tune files, and
# certify's cases with the SDK's certify client and curl (`certify --clients certify/clients.json`
# runs them; the Python clients need .build/certify-venv, which the image does not carry, and are
# skipped, saying so).
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
    && swift build -c release --product frontmail-certify-client --static-swift-stdlib \
    && cp "$(swift build -c release --show-bin-path)/frontmail-bench" \
        "$(swift build -c release --show-bin-path)/frontmail-certify-client" /usr/local/bin/

FROM ${RUNTIME_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl libcurl4 libxml2 tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/frontmail-bench /usr/local/bin/frontmail-certify-client /usr/local/bin/
ENV FRONTMAIL_BIN=/usr/local/bin
WORKDIR /app
COPY scenarios scenarios
COPY Benchmarks/ScaleOut Benchmarks/ScaleOut
COPY tune tune
COPY certify certify
ENTRYPOINT ["frontmail-bench"]
CMD ["--help"]
