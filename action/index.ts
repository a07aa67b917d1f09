/** The Action's entry (action.yml `main`, built to action/dist by ncc). */
import { run } from "./main.js";

void run();
