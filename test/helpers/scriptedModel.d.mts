export interface ScriptedModel {
  readonly port: number;
  /** Request bodies in arrival order. */
  readonly requests: Array<{ messages?: Array<{ role: string; content?: unknown; tool_call_id?: string }>; tools?: unknown[] }>;
  /** When each request arrived (epoch ms), in the same order. */
  readonly times: number[];
  /** When each request was answered (later than it arrived while held). */
  readonly answered: number[];
  /** Holds back the answer to a request until the promise returned resolves (undefined: answer at once). */
  hold: ((body: ScriptedModel['requests'][number]) => Promise<void> | undefined) | undefined;
  close(): Promise<void>;
}
export function startScriptedModel(): Promise<ScriptedModel>;
