export { step, fold, type Process, type StepResult } from './process.js';
export { given, type Scenario } from './spec.js';
