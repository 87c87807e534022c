import { html } from "../html.ts";
import { csrfField, notice, page, type Notice } from "../layout.ts";
import type { SessionView } from "../admin-area.store.ts";

export function settingsPage(session: SessionView, org: { slackTokenSet: boolean; launchRecap: boolean }, options: { notice?: Notice | null } = {}) {
  return page(
    session,
    "/admin/settings",
    "Settings",
    html`${notice(options.notice)}
<form method="post" action="/admin/settings" class="stack">
  ${csrfField(session)}
  <fieldset class="field">
    <legend>Slack bot token</legend>
    <p>Status: <strong data-testid="slack-token-status">${org.slackTokenSet ? "set" : "not set"}</strong>. The token is stored encrypted and never shown again.</p>
    <label for="slack-token">New Slack bot token (leave empty to keep the current one)</label>
    <input id="slack-token" name="slack_token" type="password" autocomplete="off" maxlength="512" placeholder="xoxb-…">
    ${org.slackTokenSet ? html`<label class="choice"><input type="checkbox" name="clear_slack_token" value="yes"> Remove the stored token</label>` : null}
  </fieldset>
  <fieldset class="field">
    <legend>Launch recap</legend>
    <label class="choice"><input type="checkbox" name="launch_recap" value="on"${org.launchRecap ? html` checked` : ""}> Draft a launch-recap e-mail when an onboarding reaches launch</label>
  </fieldset>
  <button type="submit">Save settings</button>
</form>`,
  );
}
