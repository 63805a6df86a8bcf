/** Entry point of the `lab` executable (bin/lab.js loads the built copy). */
import { run } from "./main.js";

await run();
