/** Reading a list page by page: answer shapes, `next` links kept on the list, pages fetched ahead when proven safe. */
export { paginate, paginateAll, type PaginateOptions } from './paginate';
