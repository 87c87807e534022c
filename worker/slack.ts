import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError } from "@slack/web-api";
import type { Db } from "../shared/db/client.ts";
import { decryptSecret } from "../shared/secrets.ts";
import { PermanentFailure } from "./failures.ts";

export interface SlackSettings {
  /** Slack's Web API address; a loopback stand-in in tests. */
  apiUrl: string | null;
  /** SLACK_BOT_TOKEN: for workspaces without a token of their own. */
  fallbackToken: string | null;
  secretKey: string | null;
}

/** Slack errors that no retry can fix. Anything else (rate limits, 5xx, network) is retried. */
const PERMANENT = new Set([
  "not_authed",
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "no_permission",
  "missing_scope",
  "not_allowed_token_type",
  "user_not_found",
  "users_not_found",
  "user_disabled",
  "channel_not_found",
  "cannot_dm_bot",
  "invalid_arguments",
  "invalid_metadata_format",
]);

function classify(error: unknown): Error {
  if ((error as { code?: string }).code === ErrorCode.PlatformError) {
    const slackError = (error as WebAPIPlatformError).data.error;
    if (PERMANENT.has(slackError)) return new PermanentFailure(`Slack refused: ${slackError}`);
    return new Error(`Slack error: ${slackError}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Direct messages through `@slack/web-api`. BullMQ owns retries (with exponential backoff),
 * so the client itself does not retry. A message carries its delivery id as Slack message
 * metadata: an attempt that may follow one which already posted first looks in the
 * conversation for that id, so a job retried after a crash does not post twice.
 */
export function createSlackGateway(db: Db, settings: SlackSettings) {
  const orgToken = db.$client.prepare<{ sealed: string | null }, { orgId: string }>(
    "SELECT slack_token_encrypted AS sealed FROM organizations WHERE id = $orgId",
  );
  const clients = new Map<string, WebClient>();

  function tokenFor(orgId: string): string {
    const sealed = orgToken.get({ orgId })?.sealed ?? null;
    if (sealed !== null) {
      if (!settings.secretKey) throw new PermanentFailure("the workspace's Slack token is stored but SECRET_KEY is not set");
      try {
        return decryptSecret(settings.secretKey, sealed);
      } catch {
        throw new PermanentFailure("the workspace's Slack token cannot be decrypted with this SECRET_KEY");
      }
    }
    if (settings.fallbackToken) return settings.fallbackToken;
    throw new PermanentFailure("no Slack token: set one with `admin org update --slack-token` or SLACK_BOT_TOKEN");
  }

  function client(token: string): WebClient {
    let web = clients.get(token);
    if (!web) {
      web = new WebClient(token, {
        ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl.endsWith("/") ? settings.apiUrl : `${settings.apiUrl}/` } : {}),
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        logLevel: LogLevel.ERROR,
      });
      clients.set(token, web);
    }
    return web;
  }

  return {
    async directMessage(input: { orgId: string; slackUserId: string; text: string; deliveryId: string; mayHaveSent: boolean }): Promise<"posted" | "found"> {
      const web = client(tokenFor(input.orgId));
      try {
        const opened = await web.conversations.open({ users: input.slackUserId });
        const channel = opened.channel?.id;
        if (!channel) throw new Error("Slack opened no conversation");
        if (input.mayHaveSent) {
          const history = await web.conversations.history({ channel, limit: 100, include_all_metadata: true });
          const earlier = history.messages?.find(
            (m) => (m as { metadata?: { event_payload?: { delivery_id?: string } } }).metadata?.event_payload?.delivery_id === input.deliveryId,
          );
          if (earlier) return "found";
        }
        await web.chat.postMessage({
          channel,
          text: input.text,
          metadata: { event_type: "onboarding_notification", event_payload: { delivery_id: input.deliveryId } },
        });
        return "posted";
      } catch (error) {
        throw classify(error);
      }
    },
  };
}

export type SlackGateway = ReturnType<typeof createSlackGateway>;
