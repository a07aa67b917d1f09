export class LocalStore {}
