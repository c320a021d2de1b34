export interface ScriptedModel {
  readonly port: number;
  /** Request bodies in arrival order. */
  readonly requests: Array<{ messages?: Array<{ role: string; content?: unknown; tool_call_id?: string }>; tools?: unknown[] }>;
  close(): Promise<void>;
}
export function startScriptedModel(): Promise<ScriptedModel>;
