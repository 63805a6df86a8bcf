import { renderMarkdownTable } from "../report/index.js";
import { loadSuite, loadTask } from "../suite/index.js";
import { defineCommand, flagOption } from "./command.js";
import { commonOptions, settingsFrom, suiteFrom } from "./shared.js";

/** `lab scenarios --suite S`. */
export const scenariosCommand = defineCommand({
  name: "scenarios",
  summary:
    "List a suite's tasks with their metadata (repository, base commit, difficulty proxies).",
  usage: "scenarios --suite S [--json]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to list" },
    json: { type: "boolean", description: "Print a JSON array of task.json objects" },
    ...commonOptions,
  },
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const suite = await loadSuite(suiteFrom(args, "scenarios"), {
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
    });
    const tasks = [];
    for (const id of suite.taskIds) tasks.push((await loadTask(suite, id)).info);
    if (flagOption(args, "json")) {
      io.stdout.write(`${JSON.stringify(tasks, null, 2)}\n`);
      return 0;
    }
    const fields = [...new Set(tasks.flatMap((task) => Object.keys(task.metadata)))];
    const rows = tasks.map((task) => [
      task.id,
      task.repo,
      task.baseCommit.slice(0, 10),
      ...fields.map((field) => String(task.metadata[field] ?? "")),
    ]);
    io.stdout.write(
      `${renderMarkdownTable(["task", "repo", "base", ...fields], rows)}\n\n${String(tasks.length)} task(s) in ${suite.name} (${suite.dir})\n`,
    );
    return 0;
  },
});
