/** Where plan-gate bodies send the user to change plan (spec "Plan-gate error body": upgradeUrl). */
export function upgradeUrl(publicUrl: string): string {
  return `${publicUrl}/dashboard/billing`;
}
