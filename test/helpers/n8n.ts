/**
 * Runs our nodes inside n8n-core's real WorkflowExecute (no mocks of n8n's execution path): a two-node workflow
 * "Input" -> node under test, a hand-written INodeTypes, a credentials helper that returns the given credential
 * data and applies the credential type's `authenticate` the way n8n does (generic: every header/qs value resolved
 * as an expression with `$credentials`), and a capturing logger behind n8n's LoggerProxy.
 *
 *   runNode({ parameters, credentials: {baseUrl, accessToken}, input?, continueOnFail?, timezone?, nodeType?,
 *             nodeTypeVersion? }) -> Promise<{ items: INodeExecutionData[][]; error?: Error; logs: string[]; run: IRun }>
 *   capturedLogs(): string[]    every line n8n's LoggerProxy received since the process started (all runs)
 *   testCredential(credentials), listSearch({ method, credentials, filter?, ... })   what the editor calls
 *   also shared with the trigger harness (test/helpers/trigger.ts): TestCredentialsHelper, applyAuthentication,
 *   TestNodeTypes, testAdditionalData({ credentials, publicBase, instanceBase?, where, extra? })
 *
 * `N8N_USER_FOLDER` is pointed at a temp dir before n8n-core is loaded (n8n-core reads it at import time).
 *
 * The parts, along their seams: n8nCore.ts (n8n loaded, logs captured), n8nCredentials.ts (credentials applied
 * as n8n does), n8nWorkflow.ts (the pieces of a test workflow), n8nRun.ts (runNode), n8nEditor.ts
 * (testCredential, listSearch).
 */
export { capturedLogs } from './n8nCore';
export { applyAuthentication, TestCredentialsHelper } from './n8nCredentials';
export { testAdditionalData, TestNodeTypes } from './n8nWorkflow';
export { runNode, type RunNodeOptions, type RunNodeResult } from './n8nRun';
export { listSearch, testCredential } from './n8nEditor';
