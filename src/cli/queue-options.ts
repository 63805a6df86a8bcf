import type { OptionDef } from "./command.js";

/** The options of commands that can hand their work to a queue (`lab run`, `lab gen`). */
export const queueOptions = {
  queue: {
    type: "string",
    value: "URL",
    description:
      "Hand the work to workers through a Redis job queue: redis://[user:pass@]HOST:PORT[/db] or rediss:// (TLS); see `lab worker`",
    env: "LAB_QUEUE",
  },
  attempts: {
    type: "string",
    value: "N",
    description:
      "With --queue: how many workers may try a job that fails for infrastructure reasons (default 3)",
  },
  insecure: {
    type: "boolean",
    description:
      "With --queue: allow a Redis on another machine without a password (a network you trust)",
  },
} as const satisfies Record<string, OptionDef>;
