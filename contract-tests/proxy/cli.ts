import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { addRuleSetOptions, readRuleSet, unsetEmptyEnv } from '../rules/rule-set-option';
import type { RuleSet } from '../rules/rules';
import { DEFAULT_LIMITS } from '../judge/memory';
import { DEFAULT_TIMEOUT_MS, parseTarget, startProxy, type RunningProxy } from './proxy';
import { buildProxyJunit, buildProxyMarkdown, formatSummary, proxyJson } from './report';

/**
 * `messaging-contract proxy --target <url>`: a reverse proxy that forwards everything to the
 * target unchanged and judges each exchange after its answer is sent. It runs until SIGINT or
 * SIGTERM, then prints its summary and writes its reports. Exit 0: no rule broken; 1: a rule was
 * broken; 2: it could not start (a bad target URL, a port in use).
 */
const DEFAULT_PROXY_PORT = 4011;

const whole = (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('must be a whole number above 0.');
  return Number(value);
};

const port = (value: string) => {
  if (!/^[0-9]+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('must be a port number (0 for any free one).');
  return Number(value);
};

function program(): Command {
  return addRuleSetOptions(new Command())
    .name('messaging-contract proxy')
    .description(
      'A reverse proxy in front of a Messaging API server: forwards every request unchanged, and checks each exchange against the rules it can judge from the traffic. Ctrl-C ends it with a summary. Exit 0: no rule broken; 1: a rule broken; 2: could not start.',
    )
    .requiredOption('--target <url>', "the server's root (its paths start with /v1)")
    .addOption(
      new Option('--port <n>', 'the port to listen on (0: any free one)')
        .default(DEFAULT_PROXY_PORT)
        .argParser(port),
    )
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .addOption(
      new Option('--timeout-ms <ms>', 'how long the target may stay silent before the client gets a 504')
        .default(DEFAULT_TIMEOUT_MS)
        .argParser(whole),
    )
    .addOption(
      new Option(
        '--max-tokens <n>',
        'tokens whose world it remembers (what it learnt of each from the traffic); the least recently used is forgotten, and learnt again from later traffic',
      )
        .default(DEFAULT_LIMITS.maxTokens)
        .argParser(whole),
    )
    .addOption(
      new Option(
        '--max-records <n>',
        'contacts and messages it remembers of each token (and as many deletions); the least recently seen are forgotten',
      )
        .default(DEFAULT_LIMITS.maxRecords)
        .argParser(whole),
    )
    .addOption(
      new Option(
        '--max-total-mb <n>',
        'what it remembers of all tokens together, in MB of heap (what it counts is at least what is held): past it, the least recently used tokens are forgotten. The process itself: about 70 MB idle, and under heavy traffic about 3 MB of RSS more for each MB of this (V8 keeps garbage in proportion), plus the bodies of the exchanges under way (8 MiB each at most)',
      )
        .default(DEFAULT_LIMITS.maxBytes / 2 ** 20)
        .argParser(whole),
    )
    .addOption(
      new Option(
        '--settle-ms <ms>',
        'lists are eventually consistent: a list that lacks a record learnt, or still shows one deleted, less than this long before it was asked for is no violation (retrieve is never waited for)',
      )
        .default(0)
        .argParser(whole)
        .env('CONTRACT_SETTLE_MS'),
    )
    .option('--report <file>', 'on exit, write a Markdown report')
    .option('--junit <file>', 'on exit, write JUnit XML, one test case per rule checked')
    .option('--json <file>', 'on exit, write the tally as JSON')
    .showHelpAfterError()
    .exitOverride();
}

interface ProxyCliOptions {
  target: string;
  port: number;
  host: string;
  ruleSet: RuleSet;
  timeoutMs: number;
  maxTokens: number;
  maxRecords: number;
  maxTotalMb: number;
  settleMs: number;
  report?: string;
  junit?: string;
  json?: string;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Runs the proxy until a signal; resolves with the exit code. `argv` as process.argv, without "proxy". */
export async function proxyMain(argv: string[]): Promise<number> {
  let options: ProxyCliOptions;
  try {
    const command = program();
    unsetEmptyEnv(command);
    command.parse(argv);
    options = {
      ...command.opts<ProxyCliOptions>(),
      ruleSet: readRuleSet(command, 'messaging-contract proxy'),
    };
    parseTarget(options.target);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    console.error(`messaging-contract proxy: ${(error as Error).message}`);
    return 2;
  }
  let proxy: RunningProxy;
  try {
    const { maxTokens, maxRecords, maxTotalMb } = options;
    proxy = await startProxy({
      ...options,
      limits: { maxTokens, maxRecords, maxBytes: maxTotalMb * 2 ** 20 },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `the port ${options.port} is in use` : (error as Error).message;
    console.error(`messaging-contract proxy: could not listen on ${options.host}:${options.port}: ${why}`);
    return 2;
  }
  console.log(`proxy for ${proxy.result().target} listening on ${proxy.url} (rule set ${options.ruleSet})`);
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(proxy.result().exitCode);
      stopping = true;
      console.log(`\n${signal}: stopping the proxy (send it again to stop at once)`);
      void proxy.close().then((result) => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        console.log(formatSummary(result));
        if (options.report) write(options.report, buildProxyMarkdown(result));
        if (options.junit) write(options.junit, buildProxyJunit(result));
        if (options.json) write(options.json, `${JSON.stringify(proxyJson(result), null, 2)}\n`);
        resolve(result.exitCode);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
