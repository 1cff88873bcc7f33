/**
 * Answers a main request with the script's reply: text (with a limit warning when the reply says
 * so), a tool call the request offered, or the provider's error (inside the stream when the reply
 * says so and the request streams).
 */
import type { Answer, Exchange, Protocol } from './protocol.js';
import type { Reply } from './script.js';
import { sendJson } from './sse.js';
import { shellCall, writeCall } from './tools.js';

/** Writes the answer to `reply`; returns what was served, as the log names it (`RequestRecord.served`). */
export function answerReply(protocol: Protocol, exchange: Exchange, reply: Reply): string {
  switch (reply.kind) {
    case 'text':
      protocol.answer(exchange, reply);
      return 'text';
    case 'limitWarning':
      protocol.answer(exchange, { kind: 'text', text: reply.text, limitWarning: reply.utilization });
      return 'limitWarning';
    case 'write':
    case 'shell': {
      const { tools } = exchange.view;
      const call = reply.kind === 'write' ? writeCall(reply, tools) : shellCall(reply.command, tools);
      if (call === undefined) {
        protocol.answer(
          exchange,
          noTool(
            reply.kind,
            tools.map((tool) => tool.name),
          ),
        );
        return 'no-tool';
      }
      protocol.answer(exchange, { kind: 'tool', call });
      return `${reply.kind}:${call.name}`;
    }
    default: {
      if (reply.inStream && exchange.view.stream) {
        protocol.streamError(exchange, reply);
        return `${reply.kind}:stream`;
      }
      const failure = protocol.error(reply, exchange);
      sendJson(exchange.res, failure.status, failure.body, failure.headers);
      return reply.kind;
    }
  }
}

/** The text sent instead of a tool call when the request offered no tool for it: the run shows why. */
function noTool(kind: 'write' | 'shell', offered: readonly string[]): Answer {
  const names = offered.join(', ') || 'none';
  return {
    kind: 'text',
    text: `simulator: the script asked for a ${kind} tool call, but the request offered no such tool (offered: ${names}).`,
  };
}
