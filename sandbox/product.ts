/** The service the sandbox stands in for, as its dashboard and its e-mails name it (an invented product). */
export const PRODUCT = 'Citaflow';
