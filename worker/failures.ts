/**
 * A failure that retrying cannot fix (no CSM, unknown Slack user, no token): the job fails
 * at once, its delivery is recorded as failed, and BullMQ does not retry it.
 */
export class PermanentFailure extends Error {
  override name = "PermanentFailure";
}
