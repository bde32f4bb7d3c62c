/** The longest display name the dashboard's form takes (the server checks the same, app/data/account.server.ts). */
export const DISPLAY_NAME_MAX = 80;
