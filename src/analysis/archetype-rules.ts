import type { Rule } from "./match-rules.ts";
import type { ArchetypeMatch } from "./types.ts";

export interface ArchetypeRule extends Rule {
  kind: ArchetypeMatch["kind"];
  /** Only counts when no strong rule matched (stdlib patterns, API specs). */
  weak?: boolean;
}

/** Runtime dependencies only (dev tooling says nothing about what the project is). */
export const ARCHETYPE_RULES: ArchetypeRule[] = [
  {
    kind: "k8s-operator",
    name: "Kubernetes controller/operator",
    deps: [
      "go:sigs.k8s.io/controller-runtime", "go:github.com/operator-framework/operator-sdk", "pypi:kopf",
      "cargo:kube-runtime", "maven:io.javaoperatorsdk:*",
    ],
    // kubebuilder/operator-sdk layout: a PROJECT file and generated CRDs under config/crd.
    files: { pattern: /^(PROJECT|config\/crd\/.+)$/, label: "PROJECT / config/crd" },
  },
  {
    kind: "rest-api",
    name: "REST API",
    deps: [
      "npm:express", "npm:fastify", "npm:koa", "npm:@nestjs/core", "npm:@hapi/hapi", "npm:hono", "npm:restify",
      "go:github.com/gin-gonic/gin", "go:github.com/labstack/echo", "go:github.com/go-chi/chi",
      "go:github.com/gorilla/mux", "go:github.com/gofiber/fiber",
      "pypi:flask", "pypi:fastapi", "pypi:django", "pypi:djangorestframework", "pypi:starlette",
      "cargo:actix-web", "cargo:axum", "cargo:rocket", "cargo:warp",
      "maven:org.springframework.boot:spring-boot-starter-web", "maven:org.springframework.boot:spring-boot-starter-webflux",
      "maven:org.springframework:spring-web", "maven:io.quarkus:quarkus-resteasy*", "maven:io.micronaut:micronaut-http-server*",
      "maven:jakarta.ws.rs:*", "maven:io.javalin:javalin",
    ],
    signals: { "jvm.rest-controller": "Spring MVC annotations" },
  },
  {
    kind: "rest-api",
    name: "REST API",
    weak: true,
    signals: { "go.nethttp": "net/http server" },
    files: { pattern: /(^|\/)(openapi|swagger)[^/]*\.(ya?ml|json)$/, label: "OpenAPI specs" },
  },
  {
    kind: "grpc-service",
    name: "gRPC service",
    deps: [
      "npm:@grpc/grpc-js", "npm:grpc", "npm:@connectrpc/connect*", "go:google.golang.org/grpc", "go:connectrpc.com/connect",
      "pypi:grpcio", "cargo:tonic", "maven:io.grpc:*", "maven:net.devh:grpc-server-spring-boot-starter",
    ],
    files: { pattern: /\.proto$/, label: ".proto files" },
  },
  {
    kind: "cli",
    name: "CLI tool",
    deps: [
      "npm:commander", "npm:yargs", "npm:@oclif/core", "npm:cac", "npm:meow", "npm:clipanion", "npm:citty",
      "go:github.com/spf13/cobra", "go:github.com/urfave/cli", "go:github.com/alecthomas/kong",
      "pypi:click", "pypi:typer", "cargo:clap", "cargo:structopt", "cargo:argh", "maven:info.picocli:picocli",
    ],
    signals: { "manifest.bin": "executable entry" },
  },
  { kind: "cli", name: "CLI tool", weak: true, signals: { "py.argparse": "argparse" } },
  {
    kind: "event-driven",
    name: "Event-driven",
    deps: [
      "npm:kafkajs", "npm:node-rdkafka", "npm:amqplib", "npm:nats", "npm:@aws-sdk/client-sqs", "npm:@google-cloud/pubsub", "npm:bullmq",
      "go:github.com/segmentio/kafka-go", "go:github.com/confluentinc/confluent-kafka-go", "go:github.com/IBM/sarama",
      "go:github.com/Shopify/sarama", "go:github.com/nats-io/nats.go", "go:github.com/rabbitmq/amqp091-go",
      "go:github.com/streadway/amqp", "go:github.com/aws/aws-sdk-go-v2/service/sqs", "go:cloud.google.com/go/pubsub",
      "pypi:kafka-python", "pypi:confluent-kafka", "pypi:aiokafka", "pypi:pika", "pypi:nats-py", "pypi:celery",
      "cargo:rdkafka", "cargo:lapin", "cargo:async-nats",
      "maven:org.apache.kafka:kafka-clients", "maven:org.springframework.kafka:spring-kafka",
      "maven:org.springframework.boot:spring-boot-starter-amqp", "maven:com.rabbitmq:amqp-client", "maven:io.nats:jnats",
      "maven:software.amazon.awssdk:sqs",
    ],
  },
  {
    kind: "frontend-app",
    name: "Frontend app",
    devDeps: true,
    deps: ["npm:react", "npm:vue", "npm:svelte", "npm:@angular/core", "npm:solid-js", "npm:preact"],
    also: {
      name: "app tooling",
      devDeps: true,
      deps: [
        "npm:vite", "npm:next", "npm:nuxt", "npm:@sveltejs/kit", "npm:react-scripts", "npm:@angular/cli",
        "npm:astro", "npm:@remix-run/react", "npm:parcel", "npm:webpack",
      ],
      files: { pattern: /(^|\/)index\.html$/, label: "index.html" },
    },
  },
];
