import { mkdir } from "node:fs/promises";
import { checkoutTask } from "../suite/index.js";
import type { GradingPlan } from "./plan.js";

/**
 * The grading checkout at the plan's `places.repo`, made by the task's setup.sh with the
 * grade's HOME. Only lab's trusted steps touch it before the change is applied.
 */
export async function checkoutForGrade(
  plan: GradingPlan,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { places } = plan;
  await mkdir(places.home, { recursive: true });
  await checkoutTask(plan.task, places.repo, {
    timeoutMs: plan.limits.setupMs,
    env: {
      PATH: plan.machine.pathEnv,
      HOME: places.home,
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "UTC",
    },
    logFile: places.logFile,
    signal,
    purpose: "grade",
  });
}
